package io.weft.load;

import io.weft.testsupport.RedisServerProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * {@link ConnectStormTest}'s child JVM, run in a network namespace of its own: starts
 * {@code redis-server} (its default listen backlog, 511) on a loopback port, runs {@code weft-load}
 * against it in this JVM, and prints how the namespace's TCP counters moved over the run, as
 * {@value #COUNTERS} followed by {@code NAME=DELTA} pairs. The namespace holds nothing else, so
 * the counters, which the kernel keeps per network namespace, are this run's alone.
 *
 * <p>So that a storm overflows the queue on any machine, however fast redis-server accepts, the
 * server is stopped (SIGSTOP) as the run starts and continued (SIGCONT) once the queue has
 * overflowed, or {@value #HOLD_SECONDS} s after the first connect reached its queue: a run whose
 * connect window holds, queues at most the window's 128, plus the places it frees unheard after
 * the 1 s hold (64, then 32), about 224 of the 512, and overflows nothing; a run without one
 * fills the queue within milliseconds and overflows it.
 *
 * <p>Arguments: the {@code redis-server} binary, then weft-load's, in which {@value #PORT} stands
 * for the server's port. Exits with weft-load's exit code.
 */
final class ConnectStormProbe {
  static final String COUNTERS = "tcp counters:";
  static final String PORT = "{port}";
  /** What a listen queue's overflow shows as: SYNs or handshakes dropped, SYNs sent again. */
  static final List<String> NAMES = List.of("ListenOverflows", "ListenDrops", "TCPSynRetrans");
  /** How long the server stays stopped once connects reach its queue, unless the queue overflows first. */
  static final int HOLD_SECONDS = 2;

  private ConnectStormProbe() {}

  public static void main(String[] args) throws Exception {
    int exit;
    try (RedisServerProcess redis = RedisServerProcess.start(Path.of(args[0]), List.of("--maxclients", "10100"))) {
      List<String> load = new ArrayList<>();
      for (int i = 1; i < args.length; i++) {
        load.add(args[i].replace(PORT, Integer.toString(redis.port())));
      }
      Map<String, Long> before = tcpExt();
      signal(redis.handle().pid(), "STOP");
      AtomicBoolean ended = new AtomicBoolean();
      Thread holder = new Thread(() -> holdThenContinue(redis, before.get("ListenOverflows"), ended),
          "storm-probe-holder");
      holder.setDaemon(true);
      holder.start();
      try {
        exit = WeftLoad.run(System.out, load.toArray(new String[0]));
      } finally {
        ended.set(true);
        holder.join();
      }
      Map<String, Long> after = tcpExt();
      StringBuilder line = new StringBuilder(COUNTERS);
      for (String name : NAMES) {
        line.append(' ').append(name).append('=').append(after.get(name) - before.get(name));
      }
      System.out.println(line);
    }
    System.exit(exit);
  }

  /**
   * Waits (polling every millisecond) until a connect reached the stopped server's queue, then until
   * the queue overflowed or {@value #HOLD_SECONDS} s passed, and continues the server; at once if
   * the run {@code ended} first (it connected nothing). The polls order nothing: how long the
   * server stays stopped only sets how much a window's run queues.
   */
  private static void holdThenContinue(RedisServerProcess redis, long overflowsBefore, AtomicBoolean ended) {
    try {
      while (!ended.get() && acceptQueue(redis.port()) == 0) {
        LockSupport.parkNanos(1_000_000L);
      }
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(HOLD_SECONDS);
      while (!ended.get() && System.nanoTime() - until < 0L && tcpExt().get("ListenOverflows") == overflowsBefore) {
        LockSupport.parkNanos(1_000_000L);
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } finally {
      signal(redis.handle().pid(), "CONT");
    }
  }

  private static void signal(long pid, String signal) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
      if (kill.waitFor() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * The listening socket's accept queue on {@code port}: /proc/net/tcp's rx_queue of its LISTEN
   * line (state 0A). Listening sockets come first there, so the read stops early.
   */
  private static long acceptQueue(int port) throws IOException {
    String local = String.format(Locale.ROOT, ":%04X", port);
    try (BufferedReader in = Files.newBufferedReader(Path.of("/proc/net/tcp"))) {
      in.readLine();
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] f = line.trim().split("\\s+");
        if (f.length > 4 && f[1].endsWith(local) && f[3].equals("0A")) {
          return Long.parseLong(f[4].substring(f[4].indexOf(':') + 1), 16);
        }
      }
    }
    return 0L;
  }

  /** The TcpExt counters of /proc/net/netstat (a line of names, then a line of values). */
  private static Map<String, Long> tcpExt() throws IOException {
    // readAllLines: Files.readString of a /proc file can come back cut short.
    List<String> lines = Files.readAllLines(Path.of("/proc/net/netstat"));
    Map<String, Long> counters = new LinkedHashMap<>();
    for (int i = 0; i + 1 < lines.size(); i++) {
      if (lines.get(i).startsWith("TcpExt:") && lines.get(i + 1).startsWith("TcpExt:")) {
        String[] names = lines.get(i).split("\\s+");
        String[] values = lines.get(i + 1).split("\\s+");
        for (int j = 1; j < names.length && j < values.length; j++) {
          counters.put(names[j], Long.parseLong(values[j]));
        }
        break;
      }
    }
    for (String name : NAMES) {
      if (!counters.containsKey(name)) {
        throw new IllegalStateException("no TcpExt " + name + " in /proc/net/netstat: " + lines);
      }
    }
    return counters;
  }
}
