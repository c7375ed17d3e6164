package io.weft.samples.agent;

import io.weft.continuations.Mode;
import io.weft.continuations.NotInstrumentableException;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.transport.Timeout;
import io.weft.transport.mina.SuspendingMinaConnector;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Shows: continuation mode with the classes rewritten by Weft's java agent as they load, instead
 * of by the runner's class loader. The runner is built with {@code alreadyRewritten()} and runs
 * {@link PingTask} as the application loaded it. The agent rewrites this package and, from its
 * jar on the class path, the Redis client of {@code io.weft.protocols}:
 *
 * <pre>
 * java -javaagent:continuations-0.1.0-SNAPSHOT.jar=io.weft.samples.agent,io.weft.protocols \
 *      -cp &lt;this module's classes and its dependencies&gt; \
 *      io.weft.samples.agent.AgentPing [host] [port] [sessions]       (defaults: 127.0.0.1 6379 1000)
 * </pre>
 *
 * <p>Started without the agent, {@code run} refuses before any session starts, with a message
 * that names the class and the three ways to rewrite it; this program prints it and exits 2.
 */
public final class AgentPing {
  private AgentPing() {}

  /** Runs the sample; exits 1 if a session failed, 2 if the run was refused (no agent). */
  public static void main(String[] args) throws Exception {
    String host = args.length > 0 ? args[0] : "127.0.0.1";
    int port = args.length > 1 ? Integer.parseInt(args[1]) : 6379;
    int sessions = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
    try {
      RunResult<Integer> result = run(new InetSocketAddress(host, port), sessions, System.out);
      System.exit(result.allSucceeded() ? 0 : 1);
    } catch (NotInstrumentableException e) {
      System.out.println("refused: " + e.getMessage());
      System.exit(2);
    }
  }

  /** Runs {@code sessions} sessions of three PINGs each as continuations; prints the result. */
  public static RunResult<Integer> run(InetSocketAddress redis, int sessions, PrintStream out)
      throws Exception {
    try (SuspendingMinaConnector connector = SuspendingMinaConnector.tcp();
         SessionRunner runner = SessionRunner.builder()
             .mode(Mode.continuations(1))
             .connector(connector)
             .address(redis)
             .timeout(Timeout.of(2, TimeUnit.SECONDS))
             .maxInFlight(200)
             .alreadyRewritten()
             .build()) {
      RunResult<Integer> result = runner.run(PingTask.class, sessions, 3);
      out.println(result);
      int pongs = result.values().stream().mapToInt(Integer::intValue).sum();
      out.println("PONGs: " + pongs + " of " + 3L * sessions);
      return result;
    }
  }
}
