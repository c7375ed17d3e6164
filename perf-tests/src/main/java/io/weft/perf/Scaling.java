package io.weft.perf;

/**
 * Entry point of the scaling benchmark; see {@link io.weft.perf.scaling.Scaling} for
 * what it measures and {@code --help} for its options.
 */
public final class Scaling {
  private Scaling() {
  }

  public static void main(String[] args) throws Exception {
    io.weft.perf.scaling.Scaling.main(args);
  }
}
