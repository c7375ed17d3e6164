package io.weft.simulation.clients;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Plain JDK time and randomness, nothing of the simulation's: sleeps 1.5 s with Thread.sleep and
 * 0.5 s with TimeUnit.sleep, measures with System.nanoTime, reads Instant.now, Clock.systemUTC,
 * System.currentTimeMillis, ThreadLocalRandom and Math.random.
 */
public final class ClockClient implements SessionTask<String> {
  public ClockClient() {}

  @Override
  public String run(Transport transport, int session) throws Exception {
    long start = System.nanoTime();
    Thread.sleep(1500);
    TimeUnit.MILLISECONDS.sleep(500);
    long slept = System.nanoTime() - start;
    return slept + " " + Instant.now() + " " + Clock.systemUTC().millis() + " " + System.currentTimeMillis() + " "
        + ThreadLocalRandom.current().nextInt(1_000_000) + " " + Math.random();
  }
}
