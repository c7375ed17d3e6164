package io.weft.continuations.testing;

import io.weft.continuations.spi.EventLoopThread;
import io.weft.continuations.spi.Suspend;
import io.weft.continuations.spi.SuspendingConnector;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.spi.Deadlines;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.commons.javaflow.api.continuable;

/**
 * For the scheduler's thread rule: a transport whose every read suspends and is woken, twice, by
 * two of several {@link EventLoopThread}s at once (the wake-up may run any number of times, from
 * any thread), often before the session has finished unwinding its suspend. Each transport
 * checks that its session's code never runs on two threads at once: from a resume to the next
 * suspend it owns the transport, and a second owner is counted as an overlap.
 */
public final class EventLoopWakingConnector implements SuspendingConnector {
  private final List<Loop> loops = new ArrayList<>();
  /** Sessions seen running on two threads at once; must stay 0. */
  public final AtomicInteger overlaps = new AtomicInteger();
  /** Reads resumed on an event-loop thread, and on any other thread (a worker). */
  public final AtomicLong resumedOnLoop = new AtomicLong();
  public final AtomicLong resumedElsewhere = new AtomicLong();
  public final AtomicLong reads = new AtomicLong();
  /** Sessions that connected (their first step) on an event-loop thread. */
  public final AtomicLong connectedOnLoop = new AtomicLong();

  public EventLoopWakingConnector(int loopCount) {
    for (int i = 0; i < loopCount; i++) {
      Loop loop = new Loop();
      Thread thread = new EventLoopThread(loop, "test-loop-" + i);
      thread.setDaemon(true);
      loop.thread = thread;
      loops.add(loop);
      thread.start();
    }
  }

  private static final class Loop implements Runnable {
    final LinkedBlockingQueue<Runnable> wakes = new LinkedBlockingQueue<>();
    Thread thread;

    @Override
    public void run() {
      try {
        for (;;) {
          wakes.take().run();
        }
      } catch (InterruptedException e) {
        // closed
      }
    }
  }

  private void wakeTwice(Runnable wake) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    int a = random.nextInt(loops.size());
    int b = (a + 1 + random.nextInt(loops.size() - 1)) % loops.size();
    loops.get(a).wakes.add(wake);
    loops.get(b).wakes.add(wake);
  }

  /** Suspends until woken; here rather than in the transport so that this class is rewritten too. */
  @continuable
  void awaitWake() throws IOException {
    Suspend.await(this::wakeTwice, Deadlines.FOREVER);
  }

  @Override
  public Transport connect(SocketAddress remote, Timeout timeout) {
    if (EventLoopThread.inEventLoop()) {
      connectedOnLoop.incrementAndGet();
    }
    return new WakingTransport();
  }

  @Override
  public void close() {
    for (Loop loop : loops) {
      loop.thread.interrupt();
    }
  }

  final class WakingTransport extends LinesOnlyTransport {
    private final AtomicReference<Thread> owner = new AtomicReference<>();
    private String last;

    private void own() {
      if (!owner.compareAndSet(null, Thread.currentThread())) {
        overlaps.incrementAndGet();
      }
    }

    private void release() {
      if (!owner.compareAndSet(Thread.currentThread(), null)) {
        overlaps.incrementAndGet();
      }
    }

    @continuable
    private String read() throws IOException {
      release();
      awaitWake();
      own();
      reads.incrementAndGet();
      if (EventLoopThread.inEventLoop()) {
        resumedOnLoop.incrementAndGet();
      } else {
        resumedElsewhere.incrementAndGet();
      }
      return last;
    }

    @Override
    @continuable
    public String readLine(int limit) throws IOException {
      return read();
    }

    @Override
    @continuable
    public String readLineStrict(int limit) throws IOException {
      return read();
    }

    @Override
    public void writeLine(String line) {
      // The session's first action on this transport: from here it owns it until it suspends.
      owner.compareAndSet(null, Thread.currentThread());
      last = line;
    }
  }
}
