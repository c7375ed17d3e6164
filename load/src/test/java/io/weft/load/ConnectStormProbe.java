package io.weft.load;

import io.weft.testsupport.RedisServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link ConnectStormTest}'s child JVM, run in a network namespace of its own: starts
 * {@code redis-server} (its default listen backlog, 511) on a loopback port, runs {@code weft-load}
 * against it in this JVM, and prints how the namespace's TCP counters moved over the run, as
 * {@value #COUNTERS} followed by {@code NAME=DELTA} pairs. The namespace holds nothing else, so
 * the counters, which the kernel keeps per network namespace, are this run's alone.
 *
 * <p>Arguments: the {@code redis-server} binary, then weft-load's, in which {@value #PORT} stands
 * for the server's port. Exits with weft-load's exit code.
 */
final class ConnectStormProbe {
  static final String COUNTERS = "tcp counters:";
  static final String PORT = "{port}";
  /** What a listen queue's overflow shows as: SYNs or handshakes dropped, SYNs sent again. */
  static final List<String> NAMES = List.of("ListenOverflows", "ListenDrops", "TCPSynRetrans");

  private ConnectStormProbe() {}

  public static void main(String[] args) throws Exception {
    int exit;
    try (RedisServerProcess redis = RedisServerProcess.start(Path.of(args[0]), List.of("--maxclients", "10100"))) {
      List<String> load = new ArrayList<>();
      for (int i = 1; i < args.length; i++) {
        load.add(args[i].replace(PORT, Integer.toString(redis.port())));
      }
      Map<String, Long> before = tcpExt();
      exit = WeftLoad.run(System.out, load.toArray(new String[0]));
      Map<String, Long> after = tcpExt();
      StringBuilder line = new StringBuilder(COUNTERS);
      for (String name : NAMES) {
        line.append(' ').append(name).append('=').append(after.get(name) - before.get(name));
      }
      System.out.println(line);
    }
    System.exit(exit);
  }

  /** The TcpExt counters of /proc/net/netstat (a line of names, then a line of values). */
  private static Map<String, Long> tcpExt() throws Exception {
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
