package io.weft.continuations.testing;

import io.weft.continuations.internal.runtime.Wait;
import io.weft.continuations.spi.Suspend;
import io.weft.continuations.spi.SuspendingConnector;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.TransportClosedException;
import io.weft.transport.spi.Deadlines;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.commons.javaflow.api.continuable;

/**
 * For the client-shapes suite: an echo transport whose every read suspends (in continuation
 * mode) or blocks (elsewhere) until a separate waker thread wakes it, so a frame on the suspend
 * path that was not rewritten meets a real suspend on every read, every run, whatever the load.
 * A line written is echoed by the next read. Counts suspends and open transports.
 */
public final class EchoEveryReadSuspendsConnector implements SuspendingConnector {
  private final LinkedBlockingQueue<Runnable> wakes = new LinkedBlockingQueue<>();
  private final AtomicInteger waits = new AtomicInteger();
  private final AtomicInteger open = new AtomicInteger();
  private final Thread waker;
  /** A read whose next line starts with this is never woken; null for none. */
  private final String neverWoken;

  public EchoEveryReadSuspendsConnector() {
    this(null);
  }

  /**
   * One whose read of a line that starts with {@code prefix} suspends and is never woken (the
   * session's end, or the runner's close, ends it): for a test that the session ended before it.
   */
  public static EchoEveryReadSuspendsConnector neverWaking(String prefix) {
    return new EchoEveryReadSuspendsConnector(prefix);
  }

  private EchoEveryReadSuspendsConnector(String neverWoken) {
    this.neverWoken = neverWoken;
    waker = new Thread(() -> {
      try {
        for (;;) {
          Runnable wake = wakes.take();
          if (wake instanceof Wait) {
            // Wake only once the wait is armed, so that the read suspends every time rather
            // than taking the fast path when this thread is quick.
            while (!((Wait) wake).isPastRegistration()) {
              Thread.onSpinWait();
            }
          }
          wake.run();
        }
      } catch (InterruptedException e) {
        // closed
      }
    }, "echo-waker");
    waker.setDaemon(true);
    waker.start();
  }

  @Override
  public Transport connect(SocketAddress remote, Timeout timeout) {
    open.incrementAndGet();
    return new EchoTransport();
  }

  /** Reads that waited for the waker (a suspend in continuation mode). */
  public int waits() {
    return waits.get();
  }

  public int openTransports() {
    return open.get();
  }

  @Override
  public void close() {
    waker.interrupt();
  }

  final class EchoTransport extends LinesOnlyTransport {
    private final ArrayDeque<String> lines = new ArrayDeque<>();
    private boolean closed;

    @Override
    @continuable
    public String readLine(int limit) throws IOException {
      if (closed) {
        throw new TransportClosedException("closed");
      }
      waits.incrementAndGet();
      String next = lines.peek();
      if (neverWoken != null && next != null && next.startsWith(neverWoken)) {
        Suspend.await(wait -> { }, Deadlines.FOREVER);
      } else {
        Suspend.await(wakes::add, Deadlines.FOREVER);
      }
      return lines.poll();
    }

    @Override
    @continuable
    public String readLineStrict(int limit) throws IOException {
      return readLine(limit);
    }

    @Override
    public void writeLine(String line) throws IOException {
      if (closed) {
        throw new TransportClosedException("closed");
      }
      lines.add(line);
    }

    @Override
    public boolean isOpen() {
      return !closed;
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        open.decrementAndGet();
      }
    }
  }
}
