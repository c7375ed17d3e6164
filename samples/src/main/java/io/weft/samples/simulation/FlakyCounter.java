package io.weft.samples.simulation;

import io.weft.samples.simulation.client.RetryingCounterTask;
import io.weft.simulation.Latency;
import io.weft.simulation.Link;
import io.weft.simulation.Server;
import io.weft.simulation.SessionOutcome;
import io.weft.simulation.Simulation;
import io.weft.simulation.SimulationResult;
import io.weft.simulation.servers.RedisServer;
import io.weft.transport.Timeout;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Shows: a deterministic simulation. 1,000 sessions of an ordinary blocking Redis client with
 * retries ({@link RetryingCounterTask}) against a simulated Redis behind a flaky link (latency of
 * 10 ms plus an exponential tail, a reset now and then) that partitions for 20 virtual seconds,
 * from second 5 to second 25. The client's 2 s timeouts fire, it backs off and reconnects, and
 * gets through once the partition heals. About a minute of virtual time takes a few seconds of
 * wall time, and the same seed prints the same first line, bar {@code wall}:
 *
 * <pre>
 * java io.weft.samples.simulation.FlakyCounter [--seed 42] [--sessions 1000]
 * simulation seed=42 sessions=1000 events=... log-sha256=... virtual=...s wall=...s
 * </pre>
 */
public final class FlakyCounter {
  /** Where the simulated Redis listens. */
  public static final InetSocketAddress REDIS = InetSocketAddress.createUnresolved("redis", 6379);

  private FlakyCounter() {}

  /** Runs the sample; exits 1 if a session failed. */
  public static void main(String[] args) {
    long seed = 42;
    int sessions = 1000;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--seed") && i + 1 < args.length) {
        seed = Long.parseLong(args[++i]);
      } else if (args[i].equals("--sessions") && i + 1 < args.length) {
        sessions = Integer.parseInt(args[++i]);
      } else {
        System.err.println("usage: FlakyCounter [--seed N] [--sessions N]");
        System.exit(2);
      }
    }
    SimulationResult<Long> result = run(seed, sessions, System.out);
    if (!result.allSucceeded()) {
      System.exit(1);
    }
  }

  /** Builds and runs the simulation with {@code seed}; prints its summary and what the clients saw. */
  public static SimulationResult<Long> run(long seed, int sessions, PrintStream out) {
    Simulation sim = Simulation.builder()
        .seed(seed)
        .instrument("io.weft.samples.simulation.client", "io.weft.protocols", "io.weft.simulation.servers")
        .link(Link.of(Latency.exponential(10, 5, TimeUnit.MILLISECONDS)).withResets(0.0005))
        .partition("client", "redis", 5, 20, TimeUnit.SECONDS)
        .server(REDIS, Server.of(RedisServer.class).withBacklog(1024))
        .startWithin(2, TimeUnit.SECONDS)
        .timeout(Timeout.of(2, TimeUnit.SECONDS))
        .replayCommand("java -D" + Simulation.LOG_PROPERTY + "=true " + FlakyCounter.class.getName() + " --seed " + seed)
        .build();
    SimulationResult<Long> result = sim.run(RetryingCounterTask.class, sessions, REDIS,
        sim.connector("client"), REDIS, 20, 12);
    out.println(result.summary());
    long highest = 0;
    for (SessionOutcome<Long> o : result.outcomes()) {
      if (o.succeeded()) {
        highest = Math.max(highest, o.value());
      }
    }
    out.println(result.count(io.weft.continuations.Outcome.Status.SUCCEEDED) + " of " + sessions
        + " sessions made their 20 increments; the counter reached " + highest + " (an INCR whose reply a reset"
        + " lost is retried, so it can count more than " + 20L * sessions + ")");
    if (!result.allSucceeded()) {
      out.println(result.report());
    }
    return result;
  }
}
