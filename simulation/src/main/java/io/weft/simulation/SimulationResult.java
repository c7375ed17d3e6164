package io.weft.simulation;

import io.weft.continuations.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a simulation run ended with: every client session's outcome, and the run's identity: its
 * seed, how many events its log holds and their SHA-256, the virtual time it covered. The same
 * seed gives the same {@link #summary()} bar the wall time.
 *
 * @param <T> what each client session's task returns
 */
public final class SimulationResult<T> {
  private final long seed;
  private final List<SessionOutcome<T>> outcomes;
  private final long[] conns;
  private final int stuck;
  private final EventLog log;
  private final String sha256;
  private final long virtualNanos;
  private final long wallNanos;
  private final String replayCommand;

  SimulationResult(long seed, List<SessionOutcome<T>> outcomes, long[] conns, int stuck, EventLog log, long virtualNanos,
      long wallNanos, String replayCommand) {
    this.seed = seed;
    this.outcomes = List.copyOf(outcomes);
    this.conns = conns;
    this.stuck = stuck;
    this.log = log;
    this.sha256 = log.sha256();
    this.virtualNanos = virtualNanos;
    this.wallNanos = wallNanos;
    this.replayCommand = replayCommand;
  }

  @SuppressWarnings("unchecked")
  static <T> List<SessionOutcome<T>> outcomes(List<World.Slot> clients) {
    List<SessionOutcome<T>> out = new ArrayList<>(clients.size());
    for (int i = 0; i < clients.size(); i++) {
      World.Slot slot = clients.get(i);
      Throwable failure = slot.fiber.failure();
      Outcome.Status status;
      if (failure != null) {
        status = slot.fiber.isCancelled() ? Outcome.Status.CANCELLED : Outcome.Status.FAILED;
      } else if (slot.fiber.isFinished()) {
        status = Outcome.Status.SUCCEEDED;
      } else {
        status = Outcome.Status.CANCELLED;
      }
      out.add(new SessionOutcome<>(i, status, status == Outcome.Status.SUCCEEDED ? (T) slot.fiber.value() : null,
          failure));
    }
    return out;
  }

  /**
   * The one-line summary: {@code simulation seed=S sessions=N events=E log-sha256=H virtual=T wall=W}.
   *
   * @return the summary
   */
  public String summary() {
    return "simulation seed=" + seed + " sessions=" + outcomes.size() + " events=" + log.count() + " log-sha256="
        + sha256 + " virtual=" + seconds(virtualNanos) + " wall=" + seconds(wallNanos);
  }

  private static String seconds(long nanos) {
    return String.format(Locale.ROOT, "%.3fs", nanos / 1e9);
  }

  /**
   * The seed of the run.
   *
   * @return the seed
   */
  public long seed() {
    return seed;
  }

  /**
   * The SHA-256 of the event log, in hex.
   *
   * @return 64 hex digits
   */
  public String logSha256() {
    return sha256;
  }

  /**
   * How many events the log holds.
   *
   * @return the count
   */
  public long events() {
    return log.count();
  }

  /**
   * The virtual time the run covered.
   *
   * @return nanoseconds of virtual time
   */
  public long virtualNanos() {
    return virtualNanos;
  }

  /**
   * The wall-clock time the run took.
   *
   * @return nanoseconds
   */
  public long wallNanos() {
    return wallNanos;
  }

  /**
   * Client sessions that were still waiting when nothing more could happen or the virtual time
   * limit passed, and were cancelled.
   *
   * @return how many
   */
  public int stuck() {
    return stuck;
  }

  /**
   * Every client session's outcome, by index.
   *
   * @return the outcomes
   */
  public List<SessionOutcome<T>> outcomes() {
    return outcomes;
  }

  /**
   * The sessions that did not succeed.
   *
   * @return failed and cancelled sessions, by index
   */
  public List<SessionOutcome<T>> failures() {
    List<SessionOutcome<T>> out = new ArrayList<>();
    for (SessionOutcome<T> o : outcomes) {
      if (!o.succeeded()) {
        out.add(o);
      }
    }
    return out;
  }

  /**
   * Sessions that ended with this status.
   *
   * @param status the status
   * @return how many
   */
  public long count(Outcome.Status status) {
    return outcomes.stream().filter(o -> o.status() == status).count();
  }

  /**
   * Whether every client session succeeded.
   *
   * @return true if none failed or was cancelled
   */
  public boolean allSucceeded() {
    return failures().isEmpty();
  }

  /**
   * A failed session described for a person: what ended it, the seed, the command that replays
   * the run, and, with the log kept, the events around its end.
   *
   * @param outcome one of this run's outcomes
   * @return the description, several lines
   */
  public String describe(SessionOutcome<T> outcome) {
    StringBuilder b = new StringBuilder();
    b.append("session ").append(outcome.index()).append(' ').append(outcome.status().name().toLowerCase(Locale.ROOT));
    if (outcome.failure() != null) {
      b.append(": ").append(outcome.failure());
    }
    b.append("\n  seed ").append(seed).append("; to replay: ").append(replayCommand);
    if (log.kept()) {
      for (String line : log.around(outcome.index(), conns[outcome.index()], 20)) {
        b.append("\n  ").append(line);
      }
    } else {
      b.append(" (the events around it are printed when the log is kept)");
    }
    return b.toString();
  }

  /**
   * The summary, then the first failure described (see {@link #describe}) and how many more.
   *
   * @return the report
   */
  public String report() {
    StringBuilder b = new StringBuilder(summary());
    List<SessionOutcome<T>> failures = failures();
    if (!failures.isEmpty()) {
      b.append('\n').append(failures.size()).append(" of ").append(outcomes.size()).append(" sessions did not succeed");
      if (stuck > 0) {
        b.append(" (").append(stuck).append(" still waiting at the end, cancelled)");
      }
      b.append("; the first:\n").append(describe(failures.get(0)));
    }
    return b.toString();
  }

  /**
   * Every kept event of the log as lines; empty unless the log was kept.
   *
   * @return the lines
   */
  public List<String> logLines() {
    List<String> lines = new ArrayList<>();
    if (log.kept()) {
      for (long i = 0; i < log.count(); i++) {
        lines.add(log.render(i));
      }
    }
    return lines;
  }

  @Override
  public String toString() {
    return summary();
  }
}
