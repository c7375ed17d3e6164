package io.weft.simulation;

import java.util.Objects;
import java.util.Optional;
import java.util.function.LongFunction;
import java.util.function.Predicate;

/**
 * Runs a simulation over consecutive seeds and stops at the first run that breaks an invariant
 * the caller states: FoundationDB's way of finding the rare interleaving, made replayable by its
 * seed.
 *
 * <pre>{@code
 * Optional<SeedSearch.Found<String>> found = SeedSearch.firstBreaking(0, 1000,
 *     seed -> simulationWithSeed(seed).run(Client.class, 100, server),
 *     result -> result.allSucceeded());
 * found.ifPresent(f -> System.out.println(f.result().report()));
 * }</pre>
 */
public final class SeedSearch {
  private SeedSearch() {}

  /**
   * The first seed that broke the invariant, with its run.
   *
   * @param <T> what the sessions return
   * @param seed the seed
   * @param tried how many seeds were run, this one included
   * @param result the run that broke the invariant
   */
  public record Found<T>(long seed, int tried, SimulationResult<T> result) {}

  /**
   * Runs {@code run} with the seeds {@code first}, {@code first + 1}, ... (at most {@code count}
   * of them) until a result does not satisfy {@code invariant}.
   *
   * @param <T> what the sessions return
   * @param first the first seed
   * @param count how many seeds at most, at least 1
   * @param run one run of the simulation with the given seed
   * @param invariant what every run must satisfy
   * @return the first seed that broke it, or empty if none of them did
   */
  public static <T> Optional<Found<T>> firstBreaking(long first, int count, LongFunction<SimulationResult<T>> run,
      Predicate<? super SimulationResult<T>> invariant) {
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(invariant, "invariant");
    if (count < 1) {
      throw new IllegalArgumentException("count < 1: " + count);
    }
    for (int i = 0; i < count; i++) {
      long seed = first + i;
      SimulationResult<T> result = run.apply(seed);
      if (result.seed() != seed) {
        throw new IllegalStateException("the run was made with seed " + result.seed() + ", not " + seed
            + " (is -D" + Simulation.SEED_PROPERTY + " set?)");
      }
      if (!invariant.test(result)) {
        return Optional.of(new Found<>(seed, i + 1, result));
      }
    }
    return Optional.empty();
  }
}
