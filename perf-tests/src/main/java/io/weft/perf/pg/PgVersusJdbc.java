package io.weft.perf.pg;

import io.weft.continuations.Mode;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.perf.pg.session.WeftTenQueries;
import io.weft.testsupport.PostgresServerProcess;
import io.weft.testsupport.TestPki;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.Timeout;
import io.weft.transport.spi.VirtualThreads;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Weft's PostgreSQL client against pgjdbc (the JDBC driver), both on virtual threads, the same
 * workload in the same run, interleaved: N sessions, each connecting, running Q extended queries
 * ({@code SELECT $1::int + $2::int}, text results) and closing, at most F in flight, against one
 * PostgreSQL that the run starts (initdb in a temp directory, fsync off). Reports, per client,
 * the median over the rounds of the wall time and of this JVM's CPU time (both drivers run in it;
 * the server's CPU is the same for both and not counted), as queries per second and CPU
 * microseconds per query, and the ratio.
 *
 * <p>pgjdbc runs as its users get it: {@code prepareThreshold} 5, so from the fifth execution of
 * a statement on a connection it uses a named server-side statement; Weft's client parses the
 * unnamed statement every time. Needs JDK 21+ and PostgreSQL ({@code /usr/lib/postgresql/NN/bin}).
 *
 * <pre>
 * ./mvnw -q -pl perf-tests -am -DskipTests -Pbenchmarks package
 * /work/bin/slot -x java -cp perf-tests/target/benchmarks.jar io.weft.perf.pg.PgVersusJdbc --sessions 1000 --queries 10
 * </pre>
 */
@Command(name = "pg-versus-jdbc", mixinStandardHelpOptions = true,
    description = "Weft's PostgreSQL client vs pgjdbc on virtual threads: N sessions x Q queries, interleaved.")
public final class PgVersusJdbc implements java.util.concurrent.Callable<Integer> {
  @Option(names = "--sessions", defaultValue = "1000", description = "sessions per run (default: ${DEFAULT-VALUE})")
  int sessions;

  @Option(names = "--queries", defaultValue = "10", description = "queries per session (default: ${DEFAULT-VALUE})")
  int queries;

  @Option(names = "--in-flight", defaultValue = "1000",
      description = "sessions open at once; PostgreSQL forks a process for each (default: ${DEFAULT-VALUE})")
  int inFlight;

  @Option(names = "--rounds", defaultValue = "5", description = "timed rounds per client, after one warm-up (default: ${DEFAULT-VALUE})")
  int rounds;

  @Option(names = "--user", defaultValue = PostgresServerProcess.SCRAM_USER,
      description = "the server's user: weft_scram (SCRAM-SHA-256, the default since PostgreSQL 14) or weft_trust (default: ${DEFAULT-VALUE})")
  String user;

  private InetSocketAddress address;

  public static void main(String[] args) {
    System.exit(new CommandLine(new PgVersusJdbc()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    VirtualThreads.check();
    Path bin = PostgresServerProcess.findBinDirectory();
    if (bin == null) {
      System.err.println("PostgreSQL not found: apt-get install postgresql");
      return 2;
    }
    try (PostgresServerProcess pg = PostgresServerProcess.start(bin, TestPki.create("pg-versus-jdbc"))) {
      address = pg.address();
      System.out.printf("JDK %s, %d cores, load average %.2f; %d sessions x %d queries, %d in flight, user %s%n",
          Runtime.version(), Runtime.getRuntime().availableProcessors(),
          ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), sessions, queries, inFlight, user);
      runWeft();
      runJdbc();
      long[][] weft = new long[rounds][];
      long[][] jdbc = new long[rounds][];
      for (int r = 0; r < rounds; r++) {
        // Interleaved, alternating which goes first, so drift on the machine hits both.
        if (r % 2 == 0) {
          weft[r] = runWeft();
          jdbc[r] = runJdbc();
        } else {
          jdbc[r] = runJdbc();
          weft[r] = runWeft();
        }
        System.out.printf("round %d: weft %.0f ms (cpu %.0f ms), pgjdbc %.0f ms (cpu %.0f ms)%n", r + 1,
            weft[r][0] / 1e6, weft[r][1] / 1e6, jdbc[r][0] / 1e6, jdbc[r][1] / 1e6);
      }
      long total = (long) sessions * queries;
      double weftWall = median(weft, 0);
      double jdbcWall = median(jdbc, 0);
      double weftCpu = median(weft, 1);
      double jdbcCpu = median(jdbc, 1);
      System.out.printf("%-8s %12s %14s %16s%n", "client", "wall ms", "queries/s", "client cpu us/q");
      System.out.printf("%-8s %12.0f %14.0f %16.1f%n", "weft", weftWall / 1e6, total / (weftWall / 1e9), weftCpu / 1e3 / total);
      System.out.printf("%-8s %12.0f %14.0f %16.1f%n", "pgjdbc", jdbcWall / 1e6, total / (jdbcWall / 1e9), jdbcCpu / 1e3 / total);
      System.out.printf("weft/pgjdbc: wall %.2fx, client cpu %.2fx (medians of %d rounds)%n",
          weftWall / jdbcWall, weftCpu / jdbcCpu, rounds);
    }
    return 0;
  }

  private static double median(long[][] rows, int column) {
    long[] v = new long[rows.length];
    for (int i = 0; i < rows.length; i++) {
      v[i] = rows[i][column];
    }
    Arrays.sort(v);
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2.0;
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /** One Weft run: wall and CPU nanoseconds. */
  private long[] runWeft() throws Exception {
    long cpu = cpuNanos();
    long start = System.nanoTime();
    try (SocketConnector connector = new SocketConnector();
         SessionRunner runner = SessionRunner.builder().mode(Mode.VIRTUAL_THREADS).connector(connector)
             .address(address).maxInFlight(inFlight)
             .timeout(Timeout.of(60, TimeUnit.SECONDS)).build()) {
      RunResult<Long> result = runner.run(WeftTenQueries.class, sessions, user, PostgresServerProcess.password(user),
          PostgresServerProcess.DATABASE, queries);
      if (!result.allSucceeded()) {
        throw new IllegalStateException("weft: " + result + "; first failure: " + result.failures().get(0));
      }
      check("weft", result.values());
    }
    return new long[] {System.nanoTime() - start, cpuNanos() - cpu};
  }

  /** One pgjdbc run: a virtual thread per session, at most in-flight at once. */
  private long[] runJdbc() throws Exception {
    String url = "jdbc:postgresql://" + address.getHostString() + ":" + address.getPort() + "/" + PostgresServerProcess.DATABASE;
    Properties props = new Properties();
    props.setProperty("user", user);
    props.setProperty("password", PostgresServerProcess.password(user));
    props.setProperty("sslmode", "disable");
    Semaphore slots = new Semaphore(inFlight);
    AtomicInteger failures = new AtomicInteger();
    AtomicLong firstFailure = new AtomicLong();
    long[] sums = new long[sessions];
    List<Thread> threads = new ArrayList<>(sessions);
    long cpu = cpuNanos();
    long start = System.nanoTime();
    for (int s = 0; s < sessions; s++) {
      int index = s;
      threads.add(VirtualThreads.start(() -> {
        try {
          slots.acquire();
          try (Connection c = DriverManager.getConnection(url, props);
               PreparedStatement ps = c.prepareStatement("SELECT ?::int + ?::int")) {
            long sum = 0;
            for (int i = 0; i < queries; i++) {
              ps.setString(1, Integer.toString(index));
              ps.setString(2, Integer.toString(i));
              try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                sum += Long.parseLong(rs.getString(1));
              }
            }
            sums[index] = sum;
          } finally {
            slots.release();
          }
        } catch (Exception e) {
          if (failures.getAndIncrement() == 0) {
            System.err.println("pgjdbc session " + index + ": " + e);
            firstFailure.set(index);
          }
        }
      }));
    }
    for (Thread t : threads) {
      t.join();
    }
    long[] result = {System.nanoTime() - start, cpuNanos() - cpu};
    if (failures.get() > 0) {
      throw new IllegalStateException("pgjdbc: " + failures.get() + " sessions failed, the first " + firstFailure.get());
    }
    List<Long> values = new ArrayList<>();
    for (long v : sums) {
      values.add(v);
    }
    check("pgjdbc", values);
    return result;
  }

  private void check(String who, List<Long> sums) {
    for (int i = 0; i < sums.size(); i++) {
      long expected = (long) queries * i + (long) queries * (queries - 1) / 2;
      if (sums.get(i) != expected) {
        throw new IllegalStateException(who + ": session " + i + " summed " + sums.get(i) + ", not " + expected);
      }
    }
  }
}
