package io.weft.transport;

import io.weft.transport.socket.SocketTransport;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Writes and flushes 1 MiB chunks to a transport whose peer never reads, until a flush fails:
 * once the kernel's buffers are full a write blocks, and only a timeout or a close ends it. For
 * the tests of a blocked flush; bounded at {@link #MAX_CHUNKS} chunks, far above any socket
 * buffer.
 */
public final class BlockedFlusher {
  /** The most chunks written before a flush must have blocked. */
  public static final int MAX_CHUNKS = 256;
  /** The size of one chunk. */
  public static final int CHUNK_BYTES = 1 << 20;
  private static final byte[] CHUNK = new byte[CHUNK_BYTES];

  private final Thread thread;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();

  private BlockedFlusher(Transport transport, String name) {
    thread = new Thread(() -> {
      try {
        flushChunks(transport);
      } catch (Throwable t) {
        failure.set(t);
      }
    }, name);
  }

  /**
   * Writes and flushes up to {@link #MAX_CHUNKS} chunks on the calling thread; returns only if
   * every flush returned.
   *
   * @param transport where to write
   * @throws IOException what ended a flush
   */
  public static void flushChunks(Transport transport) throws IOException {
    for (int i = 0; i < MAX_CHUNKS; i++) {
      transport.write(CHUNK);
      transport.flush();
    }
  }

  /**
   * Starts {@link #flushChunks} on a thread of its own.
   *
   * @param transport where to write
   * @param name the thread's name
   * @return the started flusher
   */
  public static BlockedFlusher start(Transport transport, String name) {
    BlockedFlusher flusher = new BlockedFlusher(transport, name);
    flusher.thread.start();
    return flusher;
  }

  /**
   * Returns once the flusher is inside the socket's write under {@code SocketTransport.send}
   * (parked waiting for room, or in the blocking native write; through a TLS socket's write
   * too): with a peer that never reads, the write it is in, or one of the next few, blocks until
   * a close or the watchdog ends it. Polls the thread's stack; nothing is ordered by the pause.
   */
  public void awaitBlockedInSocketWrite() {
    while (!inSocketWrite(thread.getStackTrace())) {
      assertTrue(thread.isAlive(), "the writer ended before it blocked");
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }

  /**
   * Waits for the flusher to end.
   *
   * @return what ended its flushes, or null if every flush returned
   * @throws InterruptedException if interrupted while waiting
   */
  public Throwable join() throws InterruptedException {
    thread.join();
    return failure.get();
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
