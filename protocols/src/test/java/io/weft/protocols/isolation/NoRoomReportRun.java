package io.weft.protocols.isolation;

import io.weft.transport.spi.HeapExhaustion;

/**
 * For {@link NoRoomReportTest}'s child JVM: watches as a run does, fills the heap until not even
 * an empty array fits (HeapExhaustion's reserve still held, as when a thread first meets the
 * heap's end), then reports the last {@code OutOfMemoryError} as an I/O thread dying of it
 * would. Prints what the report did, once the heap is given back: "report: true, told: the
 * heap ran out (...)" if it told the watch; "report threw ..." if the report itself ran out of
 * heap. Exits 0 if the watch was told, 1 if not.
 */
public final class NoRoomReportRun {
  /** Where the report says the error was met; made before the heap fills (a literal's first use allocates). */
  private static final String WHAT;
  /** What the watch was told; written by the watch, with nothing allocated. */
  private static volatile String told;
  /** The heap, filled; let go before anything is printed. */
  private static Object[] held;

  static {
    WHAT = "the probe";
  }

  private NoRoomReportRun() {}

  public static void main(String[] args) {
    boolean reported = false;
    Throwable threw = null;
    try (HeapExhaustion.Watch watch = HeapExhaustion.watch(reason -> told = reason)) {
      OutOfMemoryError met = fillToTheLastByte();
      try {
        reported = HeapExhaustion.report(met, WHAT);
      } catch (Throwable e) {
        threw = e;
      }
      held = null;
    }
    System.out.println(threw != null ? "report threw " + threw : "report: " + reported + ", told: " + told);
    System.exit(told != null ? 0 : 1);
  }

  /**
   * Fills the heap into {@link #held}, a chain of arrays, each holding the one before (one
   * allocation a piece, nothing left unreachable), their length halved at each
   * {@code OutOfMemoryError} until not even an array of one fits; returns the last error.
   * Bounded: 18 lengths, each until the heap refuses it.
   */
  static OutOfMemoryError fillToTheLastByte() {
    int length = 1 << 17;
    for (;;) {
      try {
        Object[] piece = new Object[length];
        piece[0] = held;
        held = piece;
      } catch (OutOfMemoryError e) {
        if (length == 1) {
          return e;
        }
        length /= 2;
      }
    }
  }
}
