package io.weft.perf.micro;

import io.weft.perf.internal.VirtualThreads;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The benchmarks jar's entry point: JMH's own command line ({@code -h} lists it), except that
 * on a JDK without virtual threads the virtual-thread benchmarks are left out with a message
 * instead of failing one by one.
 */
public final class BenchmarkMain {
  private BenchmarkMain() {
  }

  public static void main(String[] args) throws Exception {
    List<String> jmhArgs = new ArrayList<>(Arrays.asList(args));
    if (!VirtualThreads.available()) {
      System.out.println("# Skipping VirtualThreadParkBenchmark: "
          + VirtualThreads.unavailableReason()
          + " (run on JDK 21+ to include it)");
      jmhArgs.add(0, "-e");
      jmhArgs.add(1, "VirtualThread");
    }
    org.openjdk.jmh.Main.main(jmhArgs.toArray(new String[0]));
  }
}
