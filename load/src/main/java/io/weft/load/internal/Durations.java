package io.weft.load.internal;

import java.util.Locale;

/** Durations as the command line writes them ({@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, {@code 250us}). */
public final class Durations {
  private Durations() {}

  /** Parses a duration with a unit of ns, us, ms, s, m or h; a bare number is seconds. */
  public static long parseNanos(String text) {
    String s = text.trim().toLowerCase(Locale.ROOT);
    double factor;
    String number;
    if (s.endsWith("ns")) {
      factor = 1;
      number = s.substring(0, s.length() - 2);
    } else if (s.endsWith("us") || s.endsWith("µs")) {
      factor = 1e3;
      number = s.substring(0, s.length() - 2);
    } else if (s.endsWith("ms")) {
      factor = 1e6;
      number = s.substring(0, s.length() - 2);
    } else if (s.endsWith("s")) {
      factor = 1e9;
      number = s.substring(0, s.length() - 1);
    } else if (s.endsWith("m")) {
      factor = 60e9;
      number = s.substring(0, s.length() - 1);
    } else if (s.endsWith("h")) {
      factor = 3600e9;
      number = s.substring(0, s.length() - 1);
    } else {
      factor = 1e9;
      number = s;
    }
    try {
      double v = Double.parseDouble(number);
      if (v < 0 || Double.isNaN(v)) {
        throw new IllegalArgumentException("negative duration: " + text);
      }
      return (long) (v * factor);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("bad duration " + text + ": expected e.g. 500ms, 30s, 2m", e);
    }
  }

  /** Formats nanoseconds for a person: {@code 850ns}, {@code 12.3us}, {@code 4.56ms}, {@code 1.20s}. */
  public static String format(long nanos) {
    if (nanos < 1_000L) {
      return nanos + "ns";
    }
    if (nanos < 1_000_000L) {
      return String.format(Locale.ROOT, "%.1fus", nanos / 1e3);
    }
    if (nanos < 1_000_000_000L) {
      return String.format(Locale.ROOT, "%.2fms", nanos / 1e6);
    }
    return String.format(Locale.ROOT, "%.2fs", nanos / 1e9);
  }
}
