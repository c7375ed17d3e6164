package io.weft.transport.spi;

/**
 * The read suspension of one connection, which keeps its inbound buffer bounded: whether reading
 * from the peer is wanted suspended, and the loop that brings the library's read interest to that
 * state without a lock around the library calls. Its owner ({@link InboundState}) decides the
 * wanted state under its own lock ({@link #wantSuspended}, {@link #wantResumed}) and applies it
 * after ({@link #apply}).
 *
 * <p>Two states, wanted or not; {@link #suspensions()} counts the changes to wanted. The I/O side
 * only ever asks to suspend and the reader only to resume.
 */
final class ReadSuspension {
  private final boolean reasserts;
  // Decided under the owner's lock; volatile so that apply and the diagnostics read without it.
  private volatile boolean wanted;
  private volatile int suspensions;
  /** False where suspending reads gives no backpressure (MINA's in-VM pipe). */
  private volatile boolean possible = true;

  /**
   * @param reasserts true when the library can lose a suspend or resume (MINA 2.2)
   */
  ReadSuspension(boolean reasserts) {
    this.reasserts = reasserts;
  }

  /** Marks suspension useless on this connection: it is never wanted from now on. */
  void impossible() {
    possible = false;
  }

  /**
   * Under the owner's lock, for input over the limit: true when the caller must
   * {@linkplain #apply apply} a suspension: the first time, and on a library that can lose one,
   * every time (which also repairs a lost suspension).
   */
  boolean wantSuspended() {
    if (!possible) {
      return false;
    }
    if (!wanted) {
      wanted = true;
      suspensions++;
      return true;
    }
    return reasserts;
  }

  /** Under the owner's lock: true when suspended is wanted, and now is not; apply the resume. */
  boolean wantResumed() {
    if (!wanted) {
      return false;
    }
    wanted = false;
    return true;
  }

  /** Whether a suspension is wanted now; a racy look, taken again under the lock before acting. */
  boolean isWanted() {
    return wanted;
  }

  /**
   * Suspends or resumes reading, then re-reads the wanted state and corrects until it stops
   * changing. Whichever call comes last was made after the last change of the wanted state had
   * been read, so the connection ends in the wanted state without a lock around the library
   * calls. On MINA's in-VM pipe a resume delivers the queued messages inline, and their
   * suspension happens inline too, so one resume never hands over the whole queue. The library's
   * switch is the owner's {@link InboundState#suspendReading}.
   */
  void apply(InboundState<?> owner, boolean suspend) {
    for (;;) {
      if (!owner.suspendReading(suspend)) {
        return;
      }
      boolean now = wanted;
      if (now == suspend) {
        return;
      }
      suspend = now;
    }
  }

  /** Applies the wanted state again (see {@link InboundState#reassertTraffic}). */
  void reassert(InboundState<?> owner) {
    apply(owner, wanted);
  }

  /** True when the library can lose a resume and reading has been suspended. */
  boolean needsReassertion() {
    return reasserts && suspensions > 0;
  }

  /** How many times reading was wanted suspended. */
  int suspensions() {
    return suspensions;
  }
}
