package io.weft.load;

import io.weft.load.testscenario.SignallingEchoScenario;
import io.weft.testsupport.EchoServer;
import java.io.IOException;

/**
 * A loopback echo server that is a run's only source of time: each echo moves a
 * {@link ManualTicker} on by the service time before it is answered, and one chosen echo by a
 * freeze more, a step of the clock rather than a sleep. It counts the
 * {@link SignallingEchoScenario}'s {@code done} lines, which move nothing, so that a test can wait
 * until the user has finished with the clock.
 */
final class SteppingEchoPeer implements AutoCloseable {
  final EchoServer server;
  private final ManualTicker clock;
  private final long serviceNanos;
  private final long freezeAt;
  private final long freezeNanos;
  private long echoes;
  private long done;

  /**
   * @param freezeAt the echo, counted from 1, that freezes; 0 for none
   */
  SteppingEchoPeer(ManualTicker clock, long serviceNanos, long freezeAt, long freezeNanos) throws IOException {
    this.clock = clock;
    this.serviceNanos = serviceNanos;
    this.freezeAt = freezeAt;
    this.freezeNanos = freezeNanos;
    this.server = EchoServer.builder().replies(this::answer).startTcp();
  }

  /** Each echo takes {@code serviceNanos}; none freezes. */
  SteppingEchoPeer(ManualTicker clock, long serviceNanos) throws IOException {
    this(clock, serviceNanos, 0L, 0L);
  }

  private String answer(String line) {
    if (line.equals(SignallingEchoScenario.DONE)) {
      synchronized (this) {
        done++;
        notifyAll();
      }
      return line;
    }
    long n;
    synchronized (this) {
      n = ++echoes;
    }
    clock.advance(n == freezeAt ? serviceNanos + freezeNanos : serviceNanos);
    return line;
  }

  /** Echoes answered so far ({@code done} lines not counted). */
  synchronized long echoes() {
    return echoes;
  }

  /** Waits until {@code n} iterations have finished with the clock (sent their {@code done}). */
  synchronized void awaitDone(long n) throws InterruptedException {
    while (done < n) {
      wait();
    }
  }

  @Override
  public void close() {
    server.close();
  }
}
