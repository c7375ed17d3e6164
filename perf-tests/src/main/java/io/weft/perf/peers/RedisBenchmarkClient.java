package io.weft.perf.peers;

import io.weft.testsupport.ServerBinaries;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code redis-benchmark}, the ceiling: Redis's own C client on one event loop (hiredis,
 * single-threaded, no {@code --threads}), run as a child process:
 * {@code redis-benchmark -h HOST -p PORT -c N -n ROUND_TRIPS -k 1 -r KEYS -t incr -q --csv}.
 *
 * <p>What it measures: N connections opened once and kept for the whole run ({@code -k 1});
 * each sends one {@code INCR counter:<random key below KEYS>} as soon as its previous reply has
 * arrived (no pipelining) until {@code -n} requests are done. So it does no reconnects, where
 * every other client reconnects after each session's 20 round trips: an upper bound, not a
 * like-for-like peer. {@code -k 0} is no closer: it reconnects after every single request. Its
 * requests/s and latency percentiles are its own (its timer starts once its clients are made,
 * so its process start is not counted); its CPU time and context switches are the child's,
 * from GNU {@code time} (wait4's rusage), and do include its start.
 */
final class RedisBenchmarkClient implements PeerClient {
  static final String BINARY = "redis-benchmark";
  private static final String TIME = "/usr/bin/time";
  private static final String RUSAGE_MARK = "weft-rusage";

  private final Path binary = ServerBinaries.find(BINARY);
  private final boolean timed = Files.isExecutable(Path.of(TIME));

  @Override
  public String label() {
    return "redis-benchmark";
  }

  @Override
  public String unavailableReason(PeerWorkload workload) {
    return binary == null ? BINARY + " not found on PATH (Debian package redis-tools)" : null;
  }

  @Override
  public boolean inProcess() {
    return false;
  }

  @Override
  public ClientRun run(PeerWorkload workload) throws IOException, InterruptedException {
    long requests = workload.roundTrips();
    List<String> command = new ArrayList<>();
    if (timed) {
      command.addAll(List.of(TIME, "-f", RUSAGE_MARK + " %U %S %w %c"));
    }
    command.addAll(List.of(binary.toString(), "-h", workload.redis.getAddress().getHostAddress(),
        "-p", Integer.toString(workload.redis.getPort()), "-c", Integer.toString(workload.concurrency),
        "-n", Long.toString(requests), "-k", "1", "-r", Integer.toString(workload.keys),
        "-t", "incr", "-q", "--csv"));
    Path err = Files.createTempFile("weft-redis-benchmark-", ".err");
    try {
      Process process = new ProcessBuilder(command).redirectError(err.toFile()).start();
      byte[] out = process.getInputStream().readAllBytes();
      if (!process.waitFor(workload.timeoutNanos, TimeUnit.NANOSECONDS)) {
        process.destroyForcibly();
        return failed(requests, "did not end within " + TimeUnit.NANOSECONDS.toSeconds(workload.timeoutNanos) + " s");
      }
      String stdout = new String(out, StandardCharsets.UTF_8);
      String stderr = Files.readString(err, StandardCharsets.UTF_8);
      if (process.exitValue() != 0) {
        return failed(requests, "exit " + process.exitValue() + ": " + stderr.strip() + " " + stdout.strip());
      }
      String[] incr = incrLine(stdout);
      if (incr == null) {
        return failed(requests, "no INCR line in its output: " + stdout.strip() + " " + stderr.strip());
      }
      double rps = Double.parseDouble(incr[1]);
      long wall = Math.round(requests / rps * 1e9);
      long cpu = -1L;
      long switches = -1L;
      for (String line : stderr.split("\n")) {
        if (line.startsWith(RUSAGE_MARK + " ")) {
          String[] f = line.trim().split(" ");
          cpu = Math.round((Double.parseDouble(f[1]) + Double.parseDouble(f[2])) * 1e9);
          switches = Long.parseLong(f[3]) + Long.parseLong(f[4]);
        }
      }
      return ClientRun.external(requests, 0, null, wall, Double.parseDouble(incr[4]) * 1000.0,
          Double.parseDouble(incr[6]) * 1000.0, cpu, switches);
    } finally {
      Files.deleteIfExists(err);
    }
  }

  /**
   * The fields of the {@code "INCR",...} line of its {@code --csv} output: test, rps,
   * avg_latency_ms, min_latency_ms, p50_latency_ms, p95_latency_ms, p99_latency_ms,
   * max_latency_ms.
   */
  static String[] incrLine(String csv) {
    for (String line : csv.split("\r?\n")) {
      String[] f = line.replace("\"", "").split(",");
      if (f.length >= 8 && f[0].toUpperCase(Locale.ROOT).startsWith("INCR")) {
        return f;
      }
    }
    return null;
  }

  private static ClientRun failed(long requests, String why) {
    return ClientRun.external(0L, 1, "redis-benchmark " + why + " (" + requests + " requests)", 0L,
        Double.NaN, Double.NaN, -1L, -1L);
  }

  @Override
  public void close() {
    // One child process per run, waited for by run.
  }
}
