package io.weft.transport.mina.testclient;

import io.weft.continuations.spi.EventLoopThread;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Holds its MINA processor's loop: echoes lines until a reply resumed it on the processor (at most
 * 100), then counts {@code entered} down and blocks that thread until {@code release} is counted
 * down (a minute at most), so that the loop looks at nothing meanwhile; then one more echo. Answers
 * "held" if it held the loop, else where it ran, without counting {@code entered} down.
 */
public final class HoldLoopTask implements SessionTask<String> {
  private static final int FIRST_EXCHANGES = 100;

  private final CountDownLatch entered;
  private final CountDownLatch release;

  public HoldLoopTask(CountDownLatch entered, CountDownLatch release) {
    this.entered = entered;
    this.release = release;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    for (int i = 0; i < FIRST_EXCHANGES && (i == 0 || !EventLoopThread.inEventLoop()); i++) {
      transport.writeLine("first " + index);
      transport.flush();
      transport.readLineStrict(200);
    }
    if (!EventLoopThread.inEventLoop()) {
      return "never on the loop: " + Thread.currentThread().getName();
    }
    entered.countDown();
    try {
      if (!release.await(60, TimeUnit.SECONDS)) {
        return "never released";
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
    transport.writeLine("after " + index);
    transport.flush();
    return "held, then " + transport.readLineStrict(200);
  }
}
