package io.weft.transport.socket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.transport.Timeout;
import io.weft.transport.TransportClosedException;
import io.weft.transport.TransportTimeoutException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A socket read waits in slices ({@link SocketTransport#READ_SLICE_NANOS}, 20 ms here), but on a
 * VIRTUAL_THREADS session thread, so that a
 * read whose transport was closed by a close that could not wake it still ends: when the heap runs
 * out inside the JDK's socket close after it marked the socket closing and before it signalled the
 * reader, the read stays blocked and every later close returns at once (seen in RunOutOfHeapTest's
 * THREADS case: two sessions left blocked in a socket read of a run that was aborted). The slices
 * change nothing else: a read gets data that comes slices later, and its timeout is one wait. On
 * a VIRTUAL_THREADS session thread a read is one wait.
 */
class SocketReadSliceTest {
  private static final long SLICE = TimeUnit.MILLISECONDS.toNanos(20);

  private ServerSocket server;
  private Socket accepted;
  private final CompletableFuture<Socket> peer = new CompletableFuture<>();

  @BeforeEach
  void listen() throws IOException {
    server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(() -> {
      try {
        peer.complete(server.accept());
      } catch (IOException e) {
        peer.completeExceptionally(e);
      }
    }, "slice-test-acceptor");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  @AfterEach
  void close() throws Exception {
    server.close();
    if (accepted != null) {
      accepted.close();
    }
  }

  private SocketTransport transport(Socket socket, Timeout timeout) throws Exception {
    socket.connect(server.getLocalSocketAddress());
    accepted = peer.get();
    SocketTransport transport = new SocketTransport(socket, timeout, System.nanoTime(), null);
    transport.readSliceNanos = SLICE;
    return transport;
  }

  /** A line read on another thread, returned once it has waited through {@code slices} empty slices. */
  private static CompletableFuture<String> readingPast(SocketTransport transport, int slices) {
    CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
      try {
        return transport.readLine(100);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    });
    while (transport.emptyReadSlices < slices) {
      Thread.onSpinWait();
    }
    return line;
  }

  @Test
  void aLineThatComesSlicesLaterIsRead() throws Exception {
    SocketTransport transport = transport(new Socket(), Timeout.NONE);
    CompletableFuture<String> line = readingPast(transport, 2);
    OutputStream out = accepted.getOutputStream();
    out.write("late\r\n".getBytes(StandardCharsets.US_ASCII));
    out.flush();
    assertEquals("late", line.get());
    transport.close();
  }

  @Test
  void aReadTimeoutLongerThanASliceEndsAsOneWait() throws Exception {
    SocketTransport transport = transport(new Socket(), Timeout.of(200, TimeUnit.MILLISECONDS));
    TransportTimeoutException e = assertThrows(TransportTimeoutException.class, () -> transport.readLine(100));
    assertTrue(e.getMessage().startsWith("read timed out after 200 ms waiting for a line"), e.getMessage());
    assertTrue(transport.emptyReadSlices >= 1, "slices before the timeout: " + transport.emptyReadSlices);
  }

  /**
   * On a VIRTUAL_THREADS session thread (marked by its runner) a read is one wait, not slices: each
   * slice would be a timed park, and on JDK 25 the timer of a timed park is set up on the carrier
   * after the virtual thread yields, an allocation that in a full heap ends the carrier (session
   * 16's VIRTUAL_THREADS children: every carrier dead within seconds). Its timeout is the same.
   * Such a read whose close could not wake it is ended by the runner's interrupt instead. Before,
   * this read waited its 200 ms in 20 ms slices.
   */
  @Test
  void aReadOnAVirtualSessionThreadWaitsInOneWaitNotInSlices() throws Exception {
    assertEquals(0, virtualRead(true), "slices of a virtual session thread's read");
  }

  /** Any other virtual thread (a SYNC caller, a transport used directly) keeps the slices: nothing would interrupt it. */
  @Test
  void aReadOnAnotherVirtualThreadKeepsItsSlices() throws Exception {
    assertTrue(virtualRead(false) >= 1, "an unmarked virtual thread's read had no slices");
  }

  /** A read with a 200 ms timeout on a new virtual thread, marked as a session's or not; its empty slices. */
  private int virtualRead(boolean sessionThread) throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(io.weft.transport.spi.VirtualThreads.available(),
        "virtual threads need JDK 21+");
    SocketTransport transport = transport(new Socket(), Timeout.of(200, TimeUnit.MILLISECONDS));
    CompletableFuture<Throwable> ended = new CompletableFuture<>();
    io.weft.transport.spi.VirtualThreads.start("slice-test-virtual-reader", () -> {
      try {
        if (sessionThread) {
          io.weft.transport.spi.VirtualThreads.markSessionThread();
        }
        transport.readLine(100);
        ended.complete(null);
      } catch (Throwable t) {
        ended.complete(t);
      }
    });
    Throwable e = ended.get();
    assertTrue(e instanceof TransportTimeoutException, String.valueOf(e));
    assertTrue(e.getMessage().startsWith("read timed out after 200 ms waiting for a line"), e.getMessage());
    transport.close();
    return transport.emptyReadSlices;
  }

  @Test
  void aReadWhoseCloseCouldNotWakeItEndsAtItsNextSlice() throws Exception {
    CloseFailsSocket socket = new CloseFailsSocket();
    SocketTransport transport = transport(socket, Timeout.NONE);
    CompletableFuture<String> read = readingPast(transport, 1);
    assertThrows(OutOfMemoryError.class, transport::close);
    ExecutionException ended = assertThrows(ExecutionException.class, read::get);
    assertTrue(ended.getCause().getCause() instanceof TransportClosedException, ended.toString());
    assertEquals("transport closed during read: closed by its owner", ended.getCause().getCause().getMessage());
    socket.failCloses = false;
    socket.close();
  }

  /**
   * A real loopback socket whose close fails as the JDK's does when the heap runs out half way
   * through it: nothing signals the blocked reader, and no later close does either.
   */
  private static final class CloseFailsSocket extends Socket {
    volatile boolean failCloses = true;

    @Override
    public synchronized void close() throws IOException {
      if (failCloses) {
        throw new OutOfMemoryError("as the JDK's socket close meets a full heap");
      }
      super.close();
    }
  }
}
