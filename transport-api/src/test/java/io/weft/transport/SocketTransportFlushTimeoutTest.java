package io.weft.transport;

import io.weft.transport.socket.SocketTransport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.transport.spi.WriteWatchdog;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
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
  private static final byte[] CHUNK = new byte[BlockedFlusher.CHUNK_BYTES];

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
    SocketTransport transport = connect(Timeout.of(60, TimeUnit.SECONDS));
    transport.timeout(Timeout.of(300, TimeUnit.MILLISECONDS));   // the flush's, not the connect's
    long[] failedFlushNanos = new long[1];
    TransportTimeoutException e = assertThrows(TransportTimeoutException.class, () -> {
      for (int i = 0; i < BlockedFlusher.MAX_CHUNKS; i++) {
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
    BlockedFlusher writer = BlockedFlusher.start(transport, "blocked-flusher");
    writer.awaitBlockedInSocketWrite();
    assertTrue(WriteWatchdog.armedCount() >= 1, "the blocked flush is not armed");
    transport.close();
    assertClosedByOwner(writer.join());
    assertEquals(0, WriteWatchdog.armedCount(), "watches left armed after the flush returned");
  }

  @Test
  void flushWithoutTimeoutIsNotArmed() throws Exception {
    SocketTransport transport = connect(Timeout.NONE);
    BlockedFlusher writer = BlockedFlusher.start(transport, "blocked-flusher");
    writer.awaitBlockedInSocketWrite();
    assertEquals(0, WriteWatchdog.armedCount(), "a flush with no timeout armed the watchdog");
    transport.close();
    assertClosedByOwner(writer.join());
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
}
