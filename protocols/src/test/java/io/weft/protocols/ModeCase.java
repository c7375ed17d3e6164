package io.weft.protocols;

import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * One mode a protocol test class runs in (its {@code @ParameterizedClass} argument), and how many
 * sessions its test at scale runs there: one after another in SYNC, as many concurrent sessions
 * as the mode and the real server take here in the others. VIRTUAL_THREADS is listed on every
 * JDK; on one before 21 its tests are skipped with the reason ({@link SessionMode#available()}).
 */
public record ModeCase(String name, Supplier<SessionMode> factory, int sessionsAtScale) {

  /** SYNC, THREADS, VIRTUAL_THREADS and CONTINUATIONS(1), with each one's sessions at scale. */
  public static Stream<ModeCase> all(int sync, int threads, int virtualThreads, int continuations) {
    return Stream.of(
        new ModeCase("SYNC", SessionMode::sync, sync),
        new ModeCase("THREADS", SessionMode::threads, threads),
        new ModeCase("VIRTUAL_THREADS", SessionMode::virtualThreads, virtualThreads),
        new ModeCase("CONTINUATIONS(1)", () -> SessionMode.continuations(1), continuations));
  }

  @Override
  public String toString() {
    return name;
  }
}
