package io.weft.perf.pg;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.ContinuationClassLoader;
import io.weft.continuations.Mode;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.perf.pg.session.WeftTenQueries;
import io.weft.testsupport.PostgresServerProcess;
import io.weft.testsupport.TestPki;
import io.weft.transport.Connector;
import io.weft.transport.mina.SuspendingMinaConnector;
import io.weft.transport.netty.SuspendingNettyConnector;
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
 * Weft's PostgreSQL client against pgjdbc (the JDBC driver on virtual threads, as a JDK 21+ user
 * would run it), the same workload in the same run, interleaved: N sessions, each connecting,
 * running Q extended queries ({@code SELECT $1::int + $2::int}, text results) and closing, at most
 * F in flight, against one PostgreSQL that the run starts (initdb in a temp directory, fsync off).
 * Weft runs in each mode {@code --weft} names: on virtual threads over {@code java.net.Socket}
 * ({@code vt}), and as continuations on one worker over MINA ({@code cont-mina}) or Netty
 * ({@code cont-netty}). Each round runs every client once, the order rotating from round to
 * round, so drift on the machine hits all. Reports, per client, the median over the rounds of the
 * wall time and of this JVM's CPU time (every client runs in it; the server's CPU is the same for
 * all and not counted), as queries per second and CPU microseconds per query, and each Weft
 * mode's ratio to pgjdbc. No connect pacing on either side: the server takes every connect.
 *
 * <p>pgjdbc runs as its users get it: {@code prepareThreshold} 5, so from the fifth execution of
 * a statement on a connection it uses a named server-side statement; Weft's client parses the
 * unnamed statement every time. {@code --jdbc-unprepared} adds pgjdbc with {@code prepareThreshold}
 * 0 (the unnamed statement every time, as Weft), to tell the server's parse from the clients' own
 * costs; the ratios stay against pgjdbc as its users get it. Needs JDK 21+ and PostgreSQL ({@code /usr/lib/postgresql/NN/bin}).
 *
 * <pre>
 * ./mvnw -q -pl perf-tests -am -DskipTests -Pbenchmarks package
 * /work/bin/slot -x java -cp perf-tests/target/benchmarks.jar io.weft.perf.pg.PgVersusJdbc --sessions 1000 --queries 10
 * </pre>
 */
@Command(name = "pg-versus-jdbc", mixinStandardHelpOptions = true,
    description = "Weft's PostgreSQL client (VT, continuations over MINA and Netty) vs pgjdbc on virtual threads: N sessions x Q queries, interleaved.")
public final class PgVersusJdbc implements java.util.concurrent.Callable<Integer> {
  private static final String PGJDBC = "pgjdbc";
  private static final String PGJDBC_UNPREPARED = "pgjdbc-unprep";
  /** The session class and the client it calls: what continuation mode rewrites. */
  private static final String[] INSTRUMENTED = {"io.weft.perf.pg.session", "io.weft.protocols"};

  @Option(names = "--sessions", defaultValue = "1000", description = "sessions per run (default: ${DEFAULT-VALUE})")
  int sessions;

  @Option(names = "--queries", defaultValue = "10", description = "queries per session (default: ${DEFAULT-VALUE})")
  int queries;

  @Option(names = "--in-flight", defaultValue = "1000",
      description = "sessions open at once; PostgreSQL forks a process for each (default: ${DEFAULT-VALUE})")
  int inFlight;

  @Option(names = "--rounds", defaultValue = "5", description = "timed rounds per client, after one warm-up (default: ${DEFAULT-VALUE})")
  int rounds;

  @Option(names = "--weft", split = ",", defaultValue = "vt,cont-mina,cont-netty",
      description = "Weft modes to run: vt, cont-mina, cont-netty (default: ${DEFAULT-VALUE})")
  List<String> weftModes;

  @Option(names = "--jdbc-unprepared", description = "also run pgjdbc with prepareThreshold 0 (no server-side statements)")
  boolean jdbcUnprepared;

  @Option(names = "--user", defaultValue = PostgresServerProcess.SCRAM_USER,
      description = "the server's user: weft_scram (SCRAM-SHA-256, the default since PostgreSQL 14) or weft_trust (default: ${DEFAULT-VALUE})")
  String user;

  private InetSocketAddress address;
  /** One instrumenting loader for every continuation run: the rewrite is paid once, in the warm-up. */
  private ContinuationClassLoader loader;

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
      List<String> clients = new ArrayList<>();
      for (String mode : weftModes) {
        weftConnector(mode).close(); // refuses an unknown mode before the server does any work
        clients.add(mode);
      }
      if (jdbcUnprepared) {
        clients.add(PGJDBC_UNPREPARED);
      }
      clients.add(PGJDBC);
      for (String client : clients) {
        run(client); // warm-up
      }
      int n = clients.size();
      long[][][] results = new long[n][rounds][];
      for (int r = 0; r < rounds; r++) {
        StringBuilder line = new StringBuilder("round " + (r + 1) + ":");
        for (int i = 0; i < n; i++) {
          int c = (r + i) % n;
          results[c][r] = run(clients.get(c));
          line.append(String.format(" %s %.0f ms (cpu %.0f ms)", clients.get(c), results[c][r][0] / 1e6, results[c][r][1] / 1e6));
        }
        System.out.println(line);
      }
      long total = (long) sessions * queries;
      double jdbcWall = median(results[n - 1], 0);
      double jdbcCpu = median(results[n - 1], 1);
      System.out.printf("%-12s %10s %12s %16s %20s%n", "client", "wall ms", "queries/s", "client cpu us/q", "vs pgjdbc: q/s, cpu");
      for (int c = 0; c < n; c++) {
        double wall = median(results[c], 0);
        double cpu = median(results[c], 1);
        System.out.printf("%-12s %10.0f %12.0f %16.1f %20s%n", clients.get(c), wall / 1e6, total / (wall / 1e9), cpu / 1e3 / total,
            c == n - 1 ? "" : String.format("%.2fx, %.2fx", jdbcWall / wall, cpu / jdbcCpu));
      }
      System.out.printf("(medians of %d rounds; q/s ratio above 1 and cpu ratio below 1 favour Weft)%n", rounds);
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

  private long[] run(String client) throws Exception {
    if (client.equals(PGJDBC) || client.equals(PGJDBC_UNPREPARED)) {
      return runJdbc(client.equals(PGJDBC_UNPREPARED));
    }
    return runWeft(client);
  }

  private ContinuationClassLoader loader() {
    if (loader == null) {
      loader = new ContinuationClassLoader(PgVersusJdbc.class.getClassLoader(), List.of(INSTRUMENTED));
    }
    return loader;
  }

  private static Connector weftConnector(String mode) {
    switch (mode) {
      case "vt":
        return new SocketConnector();
      case "cont-mina":
        return SuspendingMinaConnector.tcp();
      case "cont-netty":
        return SuspendingNettyConnector.tcp();
      default:
        throw new CommandLine.ParameterException(new CommandLine(new PgVersusJdbc()),
            "--weft: " + mode + " is none of vt, cont-mina, cont-netty");
    }
  }

  /** One Weft run in {@code mode}, its connector and runner made and closed inside: wall and CPU nanoseconds. */
  private long[] runWeft(String mode) throws Exception {
    long cpu = cpuNanos();
    long start = System.nanoTime();
    SessionRunner.Builder builder = SessionRunner.builder()
        .mode(mode.equals("vt") ? Mode.VIRTUAL_THREADS : Mode.continuations(1))
        .connectPacing(ConnectPacing.NONE).address(address).maxInFlight(inFlight)
        .timeout(Timeout.of(60, TimeUnit.SECONDS));
    if (!mode.equals("vt")) {
      builder.classLoader(loader());
    }
    try (Connector connector = weftConnector(mode);
         SessionRunner runner = builder.connector(connector).build()) {
      RunResult<Long> result = runner.run(WeftTenQueries.class, sessions, user, PostgresServerProcess.password(user),
          PostgresServerProcess.DATABASE, queries);
      if (!result.allSucceeded()) {
        throw new IllegalStateException("weft: " + result + "; first failure: " + result.failures().get(0));
      }
      check("weft " + mode, result.values());
    }
    return new long[] {System.nanoTime() - start, cpuNanos() - cpu};
  }

  /** One pgjdbc run: a virtual thread per session, at most in-flight at once; {@code unprepared}: no server-side statements. */
  private long[] runJdbc(boolean unprepared) throws Exception {
    String url = "jdbc:postgresql://" + address.getHostString() + ":" + address.getPort() + "/" + PostgresServerProcess.DATABASE;
    Properties props = new Properties();
    props.setProperty("user", user);
    props.setProperty("password", PostgresServerProcess.password(user));
    props.setProperty("sslmode", "disable");
    if (unprepared) {
      props.setProperty("prepareThreshold", "0");
    }
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
