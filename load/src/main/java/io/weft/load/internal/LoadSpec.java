package io.weft.load.internal;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.ConnectWindow;
import io.weft.continuations.Mode;
import java.io.File;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Everything one load run is told, filled in by the command line (or a test). */
public final class LoadSpec {
  public String scenarioClass;
  public String scenarioName;
  public final Map<String, String> params = new LinkedHashMap<>();
  public Mode mode = Mode.continuations(1);
  public final List<SocketAddress> addresses = new ArrayList<>();
  /** In-VM pipe addresses rather than TCP. */
  public boolean vmPipe;
  public long timeoutNanos = 10_000_000_000L;
  public final List<String> instrument = new ArrayList<>();
  public boolean alreadyRewritten;

  /** Closed model: users; open model: null. */
  public int users = 10;
  public long iterations;
  public long durationNanos;
  public long thinkNanos;
  /** Not recorded: this long after the first iteration begins. */
  public long warmupNanos;
  /** Open model: the schedule, or null for the closed model. */
  public Stages stages;
  public int maxSessions = 1000;
  public long expectedIntervalNanos = -1;

  /**
   * How fast users open connections (each user's first and every reconnect after a failure);
   * null for the default: none where the run has a connect window ({@link #window()}), which
   * bounds what the server's listen queue holds whatever the pace, so that a pace on top of it
   * only slows the ramp (10,000 users at {@link ConnectPacing#DEFAULT}'s 500 a second: 20 s);
   * {@link ConnectPacing#DEFAULT} over TCP without one (the open model, {@code --connect-window
   * 0}); none on the in-VM pipe (no listen queue).
   */
  public ConnectPacing connectPacing;

  /** The pacing this run uses. */
  public ConnectPacing pacing() {
    if (connectPacing != null) {
      return connectPacing;
    }
    return vmPipe || window().limits() ? ConnectPacing.NONE : ConnectPacing.DEFAULT;
  }

  /**
   * How many users may be connected and not yet heard from at once (each user's first connect
   * and every paced reconnect); null for the default: {@link ConnectWindow#DEFAULT} in the closed
   * model over TCP; none in the open model (its users connect, then wait for their first arrival
   * without a word from the server, which the window cannot tell from a connection still in the
   * server's listen queue), on the in-VM pipe, or when the pacing is set to
   * {@link ConnectPacing#NONE} ({@code --connect-rate 0}: every user at once).
   */
  public ConnectWindow connectWindow;

  /**
   * How long a place in the connect window is held from its connect without word from the server
   * before it is freed; 0 for the window's own ({@link ConnectWindow#DEFAULT_HOLD_NANOS}).
   */
  public long connectWindowHoldNanos;

  /**
   * How far the connect window may grow ({@code --connect-window-max}); 0 for the window's own:
   * a window set with {@link #connectWindow} stays its size, the default grows to its cap.
   */
  public int connectWindowMax;

  /**
   * Whether the scenario's servers are known to have a deep listen backlog (Redis' default 511):
   * the default window is then {@link ConnectWindow#DEEP_BACKLOG}, which starts at
   * {@value ConnectWindow#DEEP_BACKLOG_SESSIONS} and grows to
   * {@value ConnectWindow#DEEP_BACKLOG_MAX_SESSIONS} (where {@code net.core.somaxconn} allows it),
   * not {@link ConnectWindow#DEFAULT}.
   */
  public boolean deepBacklog;

  /** The connect window this run uses. */
  public ConnectWindow window() {
    ConnectWindow w;
    if (connectWindow != null) {
      w = vmPipe ? ConnectWindow.NONE : connectWindow;
    } else {
      w = vmPipe || stages != null || connectPacing != null && !connectPacing.paces() ? ConnectWindow.NONE
          : deepBacklog ? ConnectWindow.DEEP_BACKLOG : ConnectWindow.DEFAULT;
    }
    if (!w.limits()) {
      return w;
    }
    if (connectWindowMax > 0) {
      // Above the window's own cap it grows further (http's --connect-window-max 256 against nginx);
      // at or below it the cap is lowered only. Either way the least size stays (or the cap, if
      // lower): DEEP_BACKLOG capped at 128 (a somaxconn of 128) still halves to 32, as at 129.
      w = connectWindowMax > w.maxSessions() ? w.growingTo(connectWindowMax) : w.cappedAt(connectWindowMax);
    }
    return connectWindowHoldNanos > 0L ? w.withHold(java.time.Duration.ofNanos(connectWindowHoldNanos)) : w;
  }

  public int shard;
  public int shards = 1;

  /** The run's clock: {@link Ticker#system()}; a test may give one it steps itself. */
  public Ticker ticker = Ticker.system();

  public File outDir;
  public boolean quiet;
  public boolean terminal;
  /**
   * The launcher's class-data archive for this run ({@code WEFT_LOAD_ARCHIVE_STATE}: "none",
   * "training DIR" or "used FILE"), shown in the summary; null when the run was not started by the
   * launcher.
   */
  public String archiveState;
  public final List<Thresholds.Threshold> thresholds = new ArrayList<>();

  /** This shard's share of {@code total}: the first {@code total mod shards} shards take one more. */
  public static int share(int total, int shard, int shards) {
    return total / shards + (shard < total % shards ? 1 : 0);
  }

  /** Parses {@code i/n} (0 <= i < n). */
  public void shard(String spec) {
    String[] parts = spec.trim().split("/");
    try {
      if (parts.length != 2) {
        throw new NumberFormatException();
      }
      int i = Integer.parseInt(parts[0]);
      int n = Integer.parseInt(parts[1]);
      if (n < 1 || i < 0 || i >= n) {
        throw new IllegalArgumentException("bad shard " + spec + ": expected i/n with 0 <= i < n");
      }
      shard = i;
      shards = n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("bad shard " + spec + ": expected i/n, e.g. 0/4", e);
    }
  }
}
