package io.weft.load.scenario.builtin;

import java.util.Map;

/** Reading a scenario's parameters, with the parameter's name in every complaint. */
final class Params {
  private Params() {}

  static String string(Map<String, String> params, String name, String fallback) {
    String v = params.get(name);
    return v == null ? fallback : v;
  }

  static int integer(Map<String, String> params, String name, int fallback, int min) {
    String v = params.get(name);
    if (v == null) {
      return fallback;
    }
    try {
      int n = Integer.parseInt(v.trim());
      if (n < min) {
        throw new IllegalArgumentException(name + " < " + min + ": " + n);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " is not a number: " + v, e);
    }
  }

  static boolean bool(Map<String, String> params, String name, boolean fallback) {
    String v = params.get(name);
    return v == null ? fallback : Boolean.parseBoolean(v.trim());
  }
}
