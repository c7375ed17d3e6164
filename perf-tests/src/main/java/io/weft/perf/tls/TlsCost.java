package io.weft.perf.tls;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.Mode;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.perf.tls.session.HttpGetsSession;
import io.weft.testsupport.NginxProcess;
import io.weft.testsupport.ServerBinaries;
import io.weft.testsupport.TestPki;
import io.weft.transport.Connector;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.spi.VirtualThreads;
import io.weft.transport.mina.SuspendingMinaConnector;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * What TLS costs, per mode: the same HTTP sessions against two nginx servers on loopback, one
 * plaintext and one TLS ({@code listen ssl}, a certificate from a CA made for the run, the
 * client verifying it as in production, nginx's session cache on), N sessions in flight.
 *
 * <p>Two runs per mode and per server, after one warm-up of each:
 * <ul>
 *   <li><b>handshakes/s</b>: N sessions that each connect (with TLS: the full handshake) and do
 *       one {@code GET}; sessions per second of wall time;
 *   <li><b>round trips/s</b>: N sessions that each connect and then do {@code --requests}
 *       sequential {@code GET}s on the kept-alive connection; requests per second.
 * </ul>
 * It prints one table with both figures for plaintext and TLS and the TLS/plain ratio. Modes:
 * {@code cont1} (continuations on one worker over {@code SuspendingMinaConnector}),
 * {@code threads} and {@code vt} (a thread or a virtual thread per session over
 * {@code SocketConnector}; vt needs JDK 21+).
 *
 * <pre>
 * ./mvnw -q -pl perf-tests -am -DskipTests -Pbenchmarks package
 * java -cp perf-tests/target/benchmarks.jar io.weft.perf.tls.TlsCost --sessions 1000 --requests 20 --rounds 3
 * </pre>
 *
 * Exit status 0 when every session succeeded, 1 otherwise, 2 on bad arguments. Figures from a
 * machine shared with other work are noise: run it alone.
 */
@Command(name = "tls-cost", mixinStandardHelpOptions = true,
    description = "Handshakes/s and round trips/s over TLS vs plaintext, per mode, against nginx on loopback.")
public final class TlsCost implements Callable<Integer> {
  private static final String[] INSTRUMENTED = {
      "io.weft.perf.tls.session", "io.weft.protocols.http", "io.weft.protocols.internal"};

  @Option(names = "--sessions", defaultValue = "1000", description = "sessions in flight (default: ${DEFAULT-VALUE})")
  int sessions;

  @Option(names = "--requests", defaultValue = "20",
      description = "sequential GETs per session in the round-trip run (default: ${DEFAULT-VALUE})")
  int requests;

  @Option(names = "--rounds", defaultValue = "3",
      description = "timed runs of each kind; the median is reported (default: ${DEFAULT-VALUE})")
  int rounds;

  @Option(names = "--modes", split = ",", defaultValue = "cont1,threads,vt",
      description = "modes, of: ${DEFAULT-VALUE}")
  List<String> modes;

  @Option(names = "--timeout-s", defaultValue = "120", description = "per-operation timeout (default: ${DEFAULT-VALUE})")
  long timeoutSeconds;

  @Option(names = "--nginx", description = "the nginx binary (default: found on PATH or in /usr/sbin)")
  Path nginxBinary;

  /** One row of the table. */
  record Row(String mode, double plainHandshakes, double tlsHandshakes, double plainRoundTrips,
      double tlsRoundTrips, String note) {}

  public static void main(String[] args) {
    System.exit(new CommandLine(new TlsCost()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    CommandLine self = new CommandLine(this);
    if (sessions < 1 || requests < 1 || rounds < 1) {
      throw new CommandLine.ParameterException(self, "--sessions, --requests and --rounds must be at least 1");
    }
    for (String mode : modes) {
      if (!List.of("cont1", "threads", "vt").contains(mode)) {
        throw new CommandLine.ParameterException(self, "unknown mode " + mode + "; modes are cont1, threads, vt");
      }
    }
    Path binary = nginxBinary != null ? nginxBinary : ServerBinaries.find(NginxProcess.BINARY);
    if (binary == null) {
      throw new CommandLine.ParameterException(self,
          ServerBinaries.missingMessage(NginxProcess.BINARY, NginxProcess.DEBIAN_PACKAGE));
    }
    TestPki pki = TestPki.create("Weft TLS cost CA");
    TlsSettings tls = TlsSettings.builder().context(pki.clientContext()).build();
    Timeout timeout = Timeout.of(timeoutSeconds, TimeUnit.SECONDS);
    boolean allSucceeded = true;
    List<Row> rows = new ArrayList<>();
    try (NginxProcess plainServer = NginxProcess.start(binary, template("plain"), Map.of());
         NginxProcess tlsServer = NginxProcess.start(binary, template("tls"), Map.of(), pki.issue(TestPki.localhost()))) {
      InetSocketAddress plain = new InetSocketAddress("localhost", plainServer.port());
      InetSocketAddress secure = new InetSocketAddress("localhost", tlsServer.port());
      System.out.printf(Locale.ROOT, "# tls-cost: %d sessions in flight, %d GETs per session in the round-trip run,"
          + " median of %d, JDK %s, %d cores%n", sessions, requests, rounds, Runtime.version(),
          Runtime.getRuntime().availableProcessors());
      for (String mode : modes) {
        String unavailable = mode.equals("vt") ? VirtualThreads.unavailableReason() : null;
        if (unavailable != null) {
          rows.add(new Row(mode, Double.NaN, Double.NaN, Double.NaN, Double.NaN, unavailable));
          continue;
        }
        double[] plainFigures = measure(mode, null, plain, timeout);
        double[] tlsFigures = measure(mode, tls, secure, timeout);
        allSucceeded &= !Double.isNaN(plainFigures[0]) && !Double.isNaN(tlsFigures[0]);
        rows.add(new Row(mode, plainFigures[0], tlsFigures[0], plainFigures[1], tlsFigures[1], ""));
      }
    }
    System.out.print(table(rows));
    return allSucceeded ? 0 : 1;
  }

  /** {handshakes/s, round trips/s} for one mode against one server; NaN where a session failed. */
  private double[] measure(String mode, TlsSettings tls, InetSocketAddress address, Timeout timeout) throws Exception {
    Function<TlsSettings, Connector> connectors = mode.equals("cont1")
        ? t -> t == null ? SuspendingMinaConnector.tcp() : SuspendingMinaConnector.builder().tls(t).tcp()
        : t -> t == null ? new SocketConnector() : new SocketConnector(t);
    Mode runnerMode = mode.equals("cont1") ? Mode.continuations(1)
        : mode.equals("threads") ? Mode.THREADS : Mode.VIRTUAL_THREADS;
    try (Connector connector = connectors.apply(tls)) {
      // Unpaced: the figure is of the sessions, not of a connect ramp; the servers here listen deep.
      SessionRunner.Builder builder = SessionRunner.builder().connectPacing(ConnectPacing.NONE).mode(runnerMode).connector(connector)
          .address(address).timeout(timeout).maxInFlight(sessions);
      if (runnerMode.kind() == Mode.Kind.CONTINUATIONS) {
        builder.instrument(INSTRUMENTED);
      }
      try (SessionRunner runner = builder.build()) {
        // Warm-up: the classes rewritten and compiled, the TLS session cache filled.
        run(runner, 1);
        run(runner, requests);
        double[] handshakes = new double[rounds];
        double[] roundTrips = new double[rounds];
        for (int r = 0; r < rounds; r++) {
          handshakes[r] = run(runner, 1);
          roundTrips[r] = run(runner, requests) * requests;
        }
        String label = mode + (tls == null ? " plaintext" : " TLS");
        System.out.printf(Locale.ROOT, "%-17s handshakes/s %s  round trips/s %s%n", label,
            rounded(handshakes), rounded(roundTrips));
        return new double[] {median(handshakes), median(roundTrips)};
      }
    }
  }

  /** Sessions per second of one run of {@code sessions} sessions of {@code gets} GETs; NaN on failure. */
  private double run(SessionRunner runner, int gets) throws Exception {
    RunResult<Integer> result = runner.run(HttpGetsSession.class, sessions, gets);
    if (!result.allSucceeded()) {
      System.out.println("  failed: " + result + "; the first: " + result.failures().get(0));
      return Double.NaN;
    }
    return sessions / (result.wallNanos() / 1e9);
  }

  private static String rounded(double[] values) {
    StringBuilder out = new StringBuilder("[");
    for (double v : values) {
      out.append(out.length() > 1 ? ", " : "").append(String.format(Locale.ROOT, "%.0f", v));
    }
    return out.append(']').toString();
  }

  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  static String table(List<Row> rows) {
    StringBuilder out = new StringBuilder();
    out.append("| mode | handshakes/s plain | handshakes/s TLS | TLS/plain | round trips/s plain | round trips/s TLS"
        + " | TLS/plain |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for (Row row : rows) {
      if (!row.note().isEmpty()) {
        out.append("| ").append(row.mode()).append(" | ").append(row.note()).append(" | | | | | |\n");
        continue;
      }
      out.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.2f | %.0f | %.0f | %.2f |%n", row.mode(),
          row.plainHandshakes(), row.tlsHandshakes(), row.tlsHandshakes() / row.plainHandshakes(),
          row.plainRoundTrips(), row.tlsRoundTrips(), row.tlsRoundTrips() / row.plainRoundTrips()));
    }
    return out.toString();
  }

  private static String template(String kind) throws IOException {
    try (InputStream in = TlsCost.class.getResourceAsStream("/tls/nginx-" + kind + ".conf.template")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
