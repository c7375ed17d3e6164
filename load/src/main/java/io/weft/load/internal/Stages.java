package io.weft.load.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The open model's arrival rate over time: stages, each a duration and a rate that holds or
 * ramps linearly ({@code 30s:0->5000}, {@code 2m:5000}). Arrival {@code j} (from 0) is due when
 * the integral of the rate from 0 reaches {@code j}: a constant rate {@code r} puts arrivals at
 * {@code j / r} seconds.
 */
public final class Stages {
  private static final Pattern STAGE = Pattern.compile("([0-9.]+(?:ms|s|m|h))\\s*:\\s*([0-9.]+)(?:\\s*->\\s*([0-9.]+))?");

  private final List<double[]> stages;
  private final double[] startSeconds;
  private final double[] startArrivals;
  private final double total;

  private Stages(List<double[]> stages) {
    if (stages.isEmpty()) {
      throw new IllegalArgumentException("no stages");
    }
    this.stages = List.copyOf(stages);
    startSeconds = new double[stages.size()];
    startArrivals = new double[stages.size()];
    double t = 0;
    double n = 0;
    for (int i = 0; i < stages.size(); i++) {
      double[] s = stages.get(i);
      startSeconds[i] = t;
      startArrivals[i] = n;
      t += s[0];
      n += (s[1] + s[2]) / 2 * s[0];
    }
    total = n;
  }

  /** Parses {@code 30s:0->5000}, {@code 2m:5000}; durations in ms, s, m or h, rates per second. */
  public static Stages parse(List<String> specs) {
    List<double[]> list = new ArrayList<>();
    for (String spec : specs) {
      Matcher m = STAGE.matcher(spec.trim());
      if (!m.matches()) {
        throw new IllegalArgumentException("bad stage " + spec + ": expected DURATION:RATE or DURATION:FROM->TO, e.g. 30s:0->5000");
      }
      double seconds = Durations.parseNanos(m.group(1)) / 1e9;
      double from = Double.parseDouble(m.group(2));
      double to = m.group(3) == null ? from : Double.parseDouble(m.group(3));
      list.add(new double[] {seconds, from, to});
    }
    return new Stages(list);
  }

  /** A constant {@code rate} per second for {@code seconds}. */
  public static Stages constant(double rate, double seconds) {
    return new Stages(List.of(new double[] {seconds, rate, rate}));
  }

  /** Length of the whole schedule in seconds. */
  public double seconds() {
    double[] last = stages.get(stages.size() - 1);
    return startSeconds[stages.size() - 1] + last[0];
  }

  /** How many arrivals the whole schedule makes (the integral of its rate, rounded up). */
  public long arrivals() {
    long n = (long) Math.ceil(total - 1e-9);
    return Math.max(0L, n);
  }

  /** When arrival {@code j} is due, in seconds from the start; NaN if the schedule ends first. */
  public double arrivalSeconds(long j) {
    if (j < 0 || j >= arrivals()) {
      return Double.NaN;
    }
    for (int i = stages.size() - 1; i >= 0; i--) {
      if (startArrivals[i] <= j) {
        double[] s = stages.get(i);
        double n = j - startArrivals[i];
        double d = s[0];
        double r0 = s[1];
        double r1 = s[2];
        double at;
        if (Math.abs(r1 - r0) < 1e-12) {
          at = r0 == 0 ? d : n / r0;
        } else {
          double a = (r1 - r0) / (2 * d);
          at = (-r0 + Math.sqrt(r0 * r0 + 4 * a * n)) / (2 * a);
        }
        if (at > d) {
          continue;
        }
        return startSeconds[i] + Math.max(0, at);
      }
    }
    return Double.NaN;
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    for (double[] s : stages) {
      if (b.length() > 0) {
        b.append(", ");
      }
      b.append(Durations.format((long) (s[0] * 1e9))).append(':').append(fmt(s[1]));
      if (s[1] != s[2]) {
        b.append("->").append(fmt(s[2]));
      }
    }
    return b.toString();
  }

  private static String fmt(double r) {
    return r == Math.rint(r) ? Long.toString((long) r) : Double.toString(r);
  }
}
