package io.weft.load;

import io.weft.load.testscenario.SignallingEchoScenario;
import io.weft.testsupport.EchoServer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

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
  private long echoesAdvanced;
  private volatile long garbleAt;
  private long done;
  private final List<Long> echoAt = new ArrayList<>();
  private final List<Long> doneAt = new ArrayList<>();

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
        doneAt.add(clock.nanoTime());
        done++;
        notifyAll();
      }
      return line;
    }
    long n;
    synchronized (this) {
      echoAt.add(clock.nanoTime());
      n = ++echoes;
    }
    clock.advance(n == freezeAt ? serviceNanos + freezeNanos : serviceNanos);
    synchronized (this) {
      // After the advance: a test that saw the count sees the clock moved.
      echoesAdvanced = n;
      notifyAll();
    }
    return n == garbleAt ? "garbled" : line;
  }

  /** Answers echo {@code n} (counted from 1) with another line, which fails its iteration. */
  void garble(long n) {
    garbleAt = n;
  }

  /** The clock's reading as each echo arrived, before its own step. */
  synchronized List<Long> echoArrivals() {
    return List.copyOf(echoAt);
  }

  /** The clock's reading as each {@code done} line arrived. */
  synchronized List<Long> doneArrivals() {
    return List.copyOf(doneAt);
  }

  /**
   * Waits until {@code n} echoes have arrived (and moved the clock), or {@code millis} of real
   * time passed: true if they had. A poll interval or a hang guard, never the order of events.
   */
  synchronized boolean awaitEchoes(long n, long millis) throws InterruptedException {
    long end = System.nanoTime() + millis * 1_000_000L;
    long left;
    while (echoesAdvanced < n && (left = end - System.nanoTime()) > 0L) {
      wait(Math.max(1L, left / 1_000_000L));
    }
    return echoesAdvanced >= n;
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
