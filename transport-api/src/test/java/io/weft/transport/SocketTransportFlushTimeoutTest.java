package io.weft.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.transport.internal.WriteWatchdog;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A flush to a peer that accepted the connection and never reads: once the kernel's buffers are
 * full the write blocks, and only the write watchdog can end it. Real loopback sockets; the
 * peer's side is a plain accepted socket that is never read.
 */
@org.junit.jupiter.api.Timeout(value = 60, unit = TimeUnit.SECONDS,
    threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
class SocketTransportFlushTimeoutTest {
  /** The bound on what a test writes before its flush must have blocked: far above any socket buffer. */
  private static final int MAX_CHUNKS = 256;
  private static final byte[] CHUNK = new byte[1 << 20];

  private ServerSocket server;
  private Socket accepted;

  @BeforeEach
  void listen() throws IOException {
    server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
  }

  @AfterEach
  void closePeer() throws IOException {
    if (accepted != null) {
      accepted.close();
    }
    server.close();
  }

  /** Connects through the public API and accepts the peer's end, which nothing reads. */
  private SocketTransport connect(Timeout timeout) throws IOException {
    SocketTransport transport = SocketTransport.connect(
        new InetSocketAddress(server.getInetAddress(), server.getLocalPort()), timeout);
    accepted = server.accept();
    return transport;
  }

  @Test
  void flushToPeerThatNeverReadsTimesOutAndClosesTheTransport() throws IOException {
    SocketTransport transport = connect(Timeout.of(300, TimeUnit.MILLISECONDS));
    long[] failedFlushNanos = new long[1];
    TransportTimeoutException e = assertThrows(TransportTimeoutException.class, () -> {
      for (int i = 0; i < MAX_CHUNKS; i++) {
        long start = System.nanoTime();
        try {
          // A write of more than the send threshold sends at once: it may be the one that blocks.
          transport.write(CHUNK);
          transport.flush();
        } finally {
          failedFlushNanos[0] = System.nanoTime() - start;
        }
      }
    });
    assertTrue(e.getMessage().startsWith("flush timed out after 300 ms"), e.getMessage());
    assertTrue(failedFlushNanos[0] >= TimeUnit.MILLISECONDS.toNanos(300),
        "the last write and flush timed out after " + failedFlushNanos[0] / 1_000_000 + " ms, before its 300 ms");
    assertFalse(transport.isOpen());
    TransportClosedException closed = assertThrows(TransportClosedException.class, transport::flush);
    assertEquals("transport is closed: an operation timed out: " + e.getMessage(), closed.getMessage());
    assertEquals(0, WriteWatchdog.armedCount(), "watches left armed after the flush returned");
  }

  @Test
  void closeFromAnotherThreadDuringBlockedFlushIsTransportClosed() throws Exception {
    SocketTransport transport = connect(Timeout.of(60, TimeUnit.SECONDS));
    Thread writer = startFlushing(transport);
    awaitBlockedInWrite(writer);
    assertTrue(WriteWatchdog.armedCount() >= 1, "the blocked flush is not armed");
    transport.close();
    writer.join();
    assertClosedByOwner(outcome.get());
    assertEquals(0, WriteWatchdog.armedCount(), "watches left armed after the flush returned");
  }

  @Test
  void flushWithoutTimeoutIsNotArmed() throws Exception {
    SocketTransport transport = connect(Timeout.NONE);
    Thread writer = startFlushing(transport);
    awaitBlockedInWrite(writer);
    assertEquals(0, WriteWatchdog.armedCount(), "a flush with no timeout armed the watchdog");
    transport.close();
    writer.join();
    assertClosedByOwner(outcome.get());
  }

  /**
   * The close ended the flush (or, had the write it was in just completed, the next write found
   * the transport closed): either way the owner's close, not a timeout.
   */
  private static void assertClosedByOwner(Throwable failure) {
    assertNotNull(failure, "the flushes returned");
    assertEquals(TransportClosedException.class, failure.getClass(), String.valueOf(failure));
    String message = failure.getMessage();
    assertTrue(message.equals("transport closed during flush: closed by its owner")
        || message.equals("transport is closed: closed by its owner"), message);
  }

  private final AtomicReference<Throwable> outcome = new AtomicReference<>();

  /** Writes and flushes 1 MiB chunks until a flush fails, on a thread of its own. */
  private Thread startFlushing(SocketTransport transport) {
    Thread writer = new Thread(() -> {
      try {
        for (int i = 0; i < MAX_CHUNKS; i++) {
          transport.write(CHUNK);
          transport.flush();
        }
      } catch (Throwable t) {
        outcome.set(t);
      }
    }, "blocked-flusher");
    writer.start();
    return writer;
  }

  /**
   * Returns once {@code writer} is inside the socket's write, under {@code SocketTransport.send}
   * (parked waiting for room, or in the blocking native write): with a peer that never reads, the
   * write it is in, or one of the next few, blocks until a close or the watchdog ends it.
   */
  private static void awaitBlockedInWrite(Thread writer) {
    while (!inSocketWrite(writer.getStackTrace())) {
      assertTrue(writer.isAlive(), "the writer ended before it blocked");
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }

  private static boolean inSocketWrite(StackTraceElement[] stack) {
    boolean writing = false;
    for (StackTraceElement frame : stack) {
      String name = frame.getClassName() + "." + frame.getMethodName();
      if (name.equals("sun.nio.ch.NioSocketImpl.park") || name.endsWith("Dispatcher.write")
          || name.endsWith("DispatcherImpl.write0")) {
        writing = true;
      }
      if (writing && name.equals(SocketTransport.class.getName() + ".send")) {
        return true;
      }
    }
    return false;
  }
}
