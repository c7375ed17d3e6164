package io.weft.simulation;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * The log of one run: one record per connect, send, delivery, timer and scheduling decision. Each
 * record is a virtual time, a kind and three numbers; the run's SHA-256 is taken over their fixed
 * binary form, as they happen, so that a run of millions of events costs no text. With the log
 * kept (for a replay) the records are also stored, and {@link #render} turns one into a line.
 *
 * <p>The records fill 64 KiB buffers. A run that fills one hands its full buffers, in order, to a
 * {@link LogHasher}, whose thread hashes them while the simulation goes on; a short run (2,048
 * records or fewer) hashes on the caller's thread at the end, and starts no thread.
 */
final class EventLog {
  static final int START = 0;
  static final int RUN = 1;
  static final int END = 2;
  static final int CONNECT = 3;
  static final int REFUSED = 4;
  static final int SYN_DROPPED = 5;
  static final int ESTABLISHED = 6;
  static final int ACCEPTED = 7;
  static final int SEND = 8;
  static final int DELIVER = 9;
  static final int FIN = 10;
  static final int RESET = 11;
  static final int DROP = 12;
  static final int TIMEOUT = 13;
  static final int PARTITION = 14;
  static final int HEAL = 15;
  static final int CLOSE = 16;
  static final int SEND_TO_CLOSED = 17;

  private static final String[] KINDS = {
    "start session=%d client=%d", "run session=%d", "end session=%d failed=%d",
    "connect session=%d conn=%d port=%d", "refused session=%d conn=%d", "syn-dropped session=%d conn=%d attempt=%d",
    "established conn=%d", "accepted conn=%d session=%d", "send conn=%d side=%d bytes=%d",
    "deliver conn=%d side=%d bytes=%d", "fin conn=%d side=%d", "reset conn=%d side=%d",
    "drop conn=%d side=%d bytes=%d", "timeout session=%d", "partition path=%d until=%d",
    "heal path=%d", "close conn=%d side=%d", "to-closed conn=%d side=%d bytes=%d",
  };

  private static final int RECORD = 32;
  /** Writes a long into the buffer in one store, big-endian. */
  private static final java.lang.invoke.VarHandle LONGS =
      java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.BIG_ENDIAN);
  private static final int BUFFER = RECORD * 2048;
  private final MessageDigest sha;
  private byte[] buffer = new byte[BUFFER];
  private int used;
  /** Hashes the full buffers; null until the first one fills. */
  private LogHasher hasher;
  private long count;
  private final boolean keep;
  private long[] kept = new long[0];
  private String digest;

  EventLog(boolean keep) {
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
    this.keep = keep;
    if (keep) {
      kept = new long[5 * 1024];
    }
  }

  /** Appends a record: 32 bytes to the hash, time (8), a (8), b (8), c's low 7 bytes and the kind. */
  void add(long time, int kind, long a, long b, long c) {
    if (used == buffer.length) {
      if (hasher == null) {
        hasher = new LogHasher(sha, BUFFER);
      }
      buffer = hasher.hand(buffer);
      used = 0;
    }
    // Big-endian, as the record was always written: c's low 7 bytes, then the kind.
    LONGS.set(buffer, used, time);
    LONGS.set(buffer, used + 8, a);
    LONGS.set(buffer, used + 16, b);
    LONGS.set(buffer, used + 24, (c << 8) | (kind & 0xFF));
    used += RECORD;
    if (keep) {
      int at = (int) (count * 5);
      if (at + 5 > kept.length) {
        kept = Arrays.copyOf(kept, kept.length * 2);
      }
      kept[at] = time;
      kept[at + 1] = kind;
      kept[at + 2] = a;
      kept[at + 3] = b;
      kept[at + 4] = c;
    }
    count++;
  }

  long count() {
    return count;
  }

  boolean kept() {
    return keep;
  }

  /**
   * True when the hashing thread has fallen so far behind that {@link #keepUp} should wait for
   * it; for the simulation's thread between events.
   */
  boolean behind() {
    return hasher != null && hasher.behind();
  }

  /** Waits for the hashing thread to catch up (see {@link LogHasher#keepUp}); never inside a slice. */
  void keepUp() {
    if (hasher != null) {
      hasher.keepUp();
    }
  }

  /** True while a hashing thread runs for this log. */
  boolean hashing() {
    return hasher != null && hasher.running();
  }

  /** Ends the hashing thread of a run that ends without a digest (it failed); no record may follow. */
  void abandon() {
    if (hasher != null && digest == null) {
      hasher.abandon();
      digest = "";
    }
  }

  /** The SHA-256 of every record so far, in hex; no record may follow. Empty once abandoned. */
  String sha256() {
    if (digest == null) {
      if (hasher != null) {
        hasher.finish();
      }
      sha.update(buffer, 0, used);
      used = 0;
      digest = HexFormat.of().formatHex(sha.digest());
    }
    return digest;
  }

  /** Record {@code i} as a line: {@code 12.050000000 deliver conn=3 side=1 bytes=17}. */
  String render(long i) {
    int at = (int) (i * 5);
    int kind = (int) kept[at + 1];
    String what = String.format(KINDS[kind], kept[at + 2], kept[at + 3], kept[at + 4]);
    return String.format("%6d %s %s", i, seconds(kept[at]), what);
  }

  /** A virtual time as seconds with nine decimals. */
  static String seconds(long nanos) {
    return String.format("%d.%09d", nanos / 1_000_000_000L, nanos % 1_000_000_000L);
  }

  /**
   * The kept records that concern {@code session} or its connection {@code conn}, up to its end,
   * the last {@code context} of them; and the {@code context} records of any session just before
   * its end. Empty when the log was not kept.
   */
  List<String> around(int session, long conn, int context) {
    List<String> lines = new ArrayList<>();
    if (!keep) {
      return lines;
    }
    long end = -1;
    List<Long> own = new ArrayList<>();
    for (long i = 0; i < count; i++) {
      int at = (int) (i * 5);
      int kind = (int) kept[at + 1];
      if (concerns(kind, kept[at + 2], kept[at + 3], session, conn)) {
        own.add(i);
        if (kind == END) {
          end = i;
          break;
        }
      }
    }
    if (end < 0) {
      end = count - 1;
    }
    lines.add("events of session " + session + (conn >= 0 ? " (conn " + conn + ")" : "") + ":");
    for (int k = Math.max(0, own.size() - context); k < own.size(); k++) {
      lines.add("  " + render(own.get(k)));
    }
    lines.add("all events before its end:");
    for (long i = Math.max(0, end - context); i <= end; i++) {
      lines.add("  " + render(i));
    }
    return lines;
  }

  private static boolean concerns(int kind, long a, long b, int session, long conn) {
    switch (kind) {
      case START:
      case RUN:
      case END:
      case TIMEOUT:
      case REFUSED:
      case SYN_DROPPED:
        return a == session;
      case CONNECT:
        return a == session || b == conn;
      case ACCEPTED:
        return b == session || a == conn;
      case PARTITION:
      case HEAL:
        return false;
      default:
        return a == conn;
    }
  }
}
