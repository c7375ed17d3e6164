package io.weft.testsupport;

import io.weft.transport.spi.WriteWatchdog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What this JVM holds, read from Linux's {@code /proc/self} and the JVM's own beans, for tests
 * that check nothing outlives a run: descriptors (sockets, pipes and epoll instances, not the
 * jars the class loaders open as they go), sockets connected to given ports, live threads, and
 * live heap after garbage collection.
 */
public final class ProcessProbe {
  private ProcessProbe() {}

  /** True where {@code /proc/self/fd} can be read (Linux). */
  public static boolean available() {
    return Files.isDirectory(Paths.get("/proc/self/fd"));
  }

  /** Open descriptors that are sockets, pipes or anonymous inodes (epoll, eventfd). */
  public static int ioDescriptors() {
    int n = 0;
    for (String target : descriptorTargets()) {
      if (target.startsWith("socket:") || target.startsWith("pipe:") || target.startsWith("anon_inode:")) {
        n++;
      }
    }
    return n;
  }

  /**
   * Open TCP socket descriptors of this process whose remote port is one of {@code ports}: the
   * client ends of connections to servers on those ports (the servers' own ends have them as
   * their local port and are not counted).
   */
  public static int socketsTo(Set<Integer> ports) {
    Map<String, Integer> remotePortByInode = new HashMap<>();
    readTcpTable(Paths.get("/proc/self/net/tcp"), remotePortByInode);
    readTcpTable(Paths.get("/proc/self/net/tcp6"), remotePortByInode);
    int n = 0;
    for (String target : descriptorTargets()) {
      if (target.startsWith("socket:[")) {
        Integer port = remotePortByInode.get(target.substring(8, target.length() - 1));
        if (port != null && ports.contains(port)) {
          n++;
        }
      }
    }
    return n;
  }

  /** Used heap after two full collections, in bytes. */
  public static long liveHeapAfterGc() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    System.gc();
    System.gc();
    return memory.getHeapMemoryUsage().getUsed();
  }

  /**
   * The classes of the threads the JDK keeps for its own machinery, which start lazily on first
   * use and live as long as the JVM, not any run's: virtual threads' carriers, the JDK's system
   * threads (the I/O pollers, {@code MasterPoller}, {@code VirtualThread-unblocker}: Weft makes no
   * {@code InnocuousThread}) and, on JDK 25, a fork-join pool's {@code DelayScheduler} (the
   * virtual-thread scheduler's timer: a timed park or a socket timeout starts it).
   */
  private static final Set<String> JDK_THREAD_CLASSES = Set.of(
      "jdk.internal.misc.CarrierThread",
      "jdk.internal.misc.InnocuousThread",
      "java.util.concurrent.DelayScheduler");

  /** Platform threads alive now, except the JDK's own (see {@link #JDK_THREAD_CLASSES}). */
  public static Set<Thread> liveThreads() {
    Set<Thread> threads = new HashSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && !JDK_THREAD_CLASSES.contains(t.getClass().getName())) {
        threads.add(t);
      }
    }
    return threads;
  }

  /**
   * The threads alive now that were not in {@code before}, after giving each up to
   * {@code joinMillis} to finish (a thread whose work is done may still be on its way out).
   *
   * <p>The write watchdog ({@link WriteWatchdog#THREAD_NAME}) is the process's, not a run's: it
   * is counted only while a watch is still armed. Disarmed, it holds nothing of any run and ends
   * by itself after its idle time, however late a loaded machine lets it wake.
   */
  public static List<String> threadsLeftSince(Set<Thread> before, long joinMillis) throws InterruptedException {
    List<String> left = new ArrayList<>();
    for (Thread t : liveThreads()) {
      if (t.getName().equals(WriteWatchdog.THREAD_NAME) && WriteWatchdog.armedCount() == 0) {
        continue;
      }
      if (!before.contains(t)) {
        t.join(joinMillis);
        if (t.isAlive()) {
          left.add(t.getName());
        }
      }
    }
    return left;
  }

  private static List<String> descriptorTargets() {
    List<String> targets = new ArrayList<>();
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(Paths.get("/proc/self/fd"))) {
      for (Path fd : fds) {
        try {
          targets.add(Files.readSymbolicLink(fd).toString());
        } catch (IOException e) {
          // closed between the listing and the read (the listing's own descriptor, say)
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return targets;
  }

  private static void readTcpTable(Path table, Map<String, Integer> remotePortByInode) {
    if (!Files.isReadable(table)) {
      return;
    }
    try {
      List<String> lines = Files.readAllLines(table);
      for (int i = 1; i < lines.size(); i++) {
        String[] f = lines.get(i).trim().split("\\s+");
        if (f.length < 10) {
          continue;
        }
        String remote = f[2];
        int port = Integer.parseInt(remote.substring(remote.indexOf(':') + 1), 16);
        remotePortByInode.put(f[9], port);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
