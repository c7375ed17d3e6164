package io.weft.continuations.testing;

import io.weft.continuations.spi.Suspend;
import io.weft.continuations.spi.SuspendingConnector;
import io.weft.continuations.spi.WaitRegistration;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.spi.Deadlines;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import org.apache.commons.javaflow.api.continuable;

/**
 * For measuring: a transport whose every read suspends exactly once and is woken by a separate
 * waker thread, then returns the last line written. Its cost per exchange is Weft's
 * suspend + wake + resume, with no I/O.
 *
 * <p>For the wake-up races: with more than one waker every wait's wake-up is handed to each of
 * them, and with a wait timeout the timer races them too. Whichever ends a wait, the read returns
 * the last line written, so a session's outcome does not depend on who won; a wait whose fiber
 * was made ready twice would run it on two threads and fail or mix up the session.
 */
public final class YieldingConnector implements SuspendingConnector {
  private final List<LinkedBlockingQueue<Runnable>> wakes = new ArrayList<>();
  private final List<Thread> wakers = new ArrayList<>();
  private final long waitNanos;
  private final WaitRegistration handToEveryWaker = wake -> {
    for (LinkedBlockingQueue<Runnable> queue : wakes) {
      queue.add(wake);
    }
  };

  /** One waker, waits without a timeout. */
  public YieldingConnector() {
    this(1, Deadlines.FOREVER);
  }

  /**
   * @param wakerCount threads that each run every wait's wake-up
   * @param waitNanos each read's wait timeout, {@link Deadlines#FOREVER} for none
   */
  public YieldingConnector(int wakerCount, long waitNanos) {
    this.waitNanos = waitNanos;
    for (int i = 0; i < wakerCount; i++) {
      LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();
      Thread waker = new Thread(() -> {
        try {
          for (;;) {
            queue.take().run();
          }
        } catch (InterruptedException e) {
          // closed
        }
      }, "yield-waker-" + i);
      waker.setDaemon(true);
      wakes.add(queue);
      wakers.add(waker);
    }
    wakers.forEach(Thread::start);
  }

  @Override
  public Transport connect(SocketAddress remote, Timeout timeout) {
    return new YieldingTransport();
  }

  @Override
  public void close() {
    wakers.forEach(Thread::interrupt);
  }

  final class YieldingTransport extends LinesOnlyTransport {
    private String last;

    @Override
    @continuable
    public String readLine(int limit) throws IOException {
      Suspend.await(handToEveryWaker, waitNanos);
      return last;
    }

    @Override
    @continuable
    public String readLineStrict(int limit) throws IOException {
      Suspend.await(handToEveryWaker, waitNanos);
      return last;
    }

    @Override
    public void writeLine(String line) {
      last = line;
    }
  }
}
