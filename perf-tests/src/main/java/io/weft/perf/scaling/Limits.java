package io.weft.perf.scaling;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** This machine's limits that bound a run, to say where and why a mode stops. */
final class Limits {
  private Limits() {
  }

  /** The JVM's open-file limit, or -1 when it cannot tell. */
  static long maxFileDescriptors() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.UnixOperatingSystemMXBean) {
      return ((com.sun.management.UnixOperatingSystemMXBean) os).getMaxFileDescriptorCount();
    }
    return -1L;
  }

  /** File descriptors open in this JVM now, or -1 when it cannot tell. */
  static long openFileDescriptors() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.UnixOperatingSystemMXBean) {
      return ((com.sun.management.UnixOperatingSystemMXBean) os).getOpenFileDescriptorCount();
    }
    return -1L;
  }

  /** How many ephemeral ports a client address has towards one server address, or -1. */
  static int ephemeralPorts() {
    String range = read("/proc/sys/net/ipv4/ip_local_port_range");
    if (range == null) {
      return -1;
    }
    String[] bounds = range.trim().split("\\s+");
    try {
      return Integer.parseInt(bounds[1]) - Integer.parseInt(bounds[0]) + 1;
    } catch (RuntimeException e) {
      return -1;
    }
  }

  /** "; kernel.pid_max=..., kernel.threads-max=..." on Linux, "" elsewhere. */
  static String threadLimitsNote() {
    String pidMax = read("/proc/sys/kernel/pid_max");
    String threadsMax = read("/proc/sys/kernel/threads-max");
    if (pidMax == null && threadsMax == null) {
      return "";
    }
    return " (machine limits: kernel.pid_max=" + pidMax + ", kernel.threads-max=" + threadsMax
        + ", shared by every process)";
  }

  private static String read(String file) {
    try {
      // Line by line: /proc files report size 0, and a read sized by that can stop early
      // (JDK 25 returned "3" for a pid_max of 32768).
      List<String> lines = Files.readAllLines(Path.of(file));
      return lines.isEmpty() ? null : lines.get(0).trim();
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
