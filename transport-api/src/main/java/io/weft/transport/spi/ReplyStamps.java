package io.weft.transport.spi;

/**
 * The two stamps of {@link ReplyTiming}, for a transport to keep: {@link #sending()} from the
 * writer before the bytes are handed on, {@link #arrived()} from whichever thread takes bytes
 * off the socket. While no clock is set each is one volatile read.
 *
 * <p>The sent stamp is cleared before the first-byte stamp, and set only after it, so an arrival
 * that races a send mostly sees no send and stamps nothing; one that read the previous send's
 * stamp can still write its own late, so {@link #firstByteNanos()} answers no first byte when
 * the stamp is older than the send it would be paired with.
 */
public final class ReplyStamps {
  private volatile Ticker ticker;
  private volatile long sent = ReplyTiming.NONE;
  private volatile long firstByte = ReplyTiming.NONE;

  /** Stamps that stamp nothing until a clock is set ({@link #ticker}). */
  public ReplyStamps() {}

  /**
   * As {@link ReplyTiming#timeReplies}: clears both stamps and starts or stops stamping.
   *
   * @param ticker the clock to read, or null to stop
   */
  public void ticker(Ticker ticker) {
    this.ticker = null;
    sent = ReplyTiming.NONE;
    firstByte = ReplyTiming.NONE;
    this.ticker = ticker;
  }

  /** Bytes are about to be handed on: the sent stamp, and no first byte yet. */
  public void sending() {
    Ticker t = ticker;
    if (t != null) {
      sent = ReplyTiming.NONE;
      firstByte = ReplyTiming.NONE;
      sent = t.nanoTime();
    }
  }

  /** Bytes arrived: the first-byte stamp, if it is the first arrival since a send. */
  public void arrived() {
    Ticker t = ticker;
    if (t != null && firstByte == ReplyTiming.NONE && sent != ReplyTiming.NONE) {
      firstByte = t.nanoTime();
    }
  }

  /**
   * As {@link ReplyTiming#sentNanos()}.
   *
   * @return the sent stamp, or {@link ReplyTiming#NONE}
   */
  public long sentNanos() {
    return sent;
  }

  /**
   * As {@link ReplyTiming#firstByteNanos()}.
   *
   * @return the first-byte stamp, or {@link ReplyTiming#NONE} when there is none not older than
   *     the sent stamp
   */
  public long firstByteNanos() {
    long f = firstByte;
    long s = sent;
    return f == ReplyTiming.NONE || s == ReplyTiming.NONE || f - s < 0L ? ReplyTiming.NONE : f;
  }
}
