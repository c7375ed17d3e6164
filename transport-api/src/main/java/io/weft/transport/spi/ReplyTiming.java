package io.weft.transport.spi;

/**
 * A transport that can time the peer's part of an exchange: when its last send handed the
 * request's bytes on, and when the first bytes after that arrived. For a request and reply with
 * one request outstanding, {@link #firstByteNanos()} minus {@link #sentNanos()} is the server's
 * time plus the network's, without the client's own work before the send or after the first
 * byte (parsing the rest of the reply, waking the reader). A load driver reads it to report a
 * service time that means the server's time; wrk times a request the same way, from just before
 * its write.
 *
 * <p>Off until {@link #timeReplies} gives it a clock: then every send and the first arrival
 * after it read that clock once. Both stamps are taken where the bytes leave and arrive:
 * <ul>
 *   <li>sent: just before the transport hands the bytes to the socket, or to the I/O library
 *       (which writes them on its I/O thread, or at once when called there);
 *   <li>first byte: when the I/O thread buffers bytes received from the socket; on a blocking
 *       socket transport, when the reader's socket read returns them.
 * </ul>
 * Bytes that arrive later than the first after a send do not move the stamp; with pipelined
 * requests the first byte after the last send may belong to an earlier reply.
 *
 * <p>Implemented by every transport of the connection core and by the blocking socket
 * transport. For drivers and tools, not protocol code.
 */
public interface ReplyTiming {
  /** The value of a stamp not taken (yet). */
  long NONE = Long.MIN_VALUE;

  /**
   * Starts timing with {@code ticker}, or stops with null. Both stamps are {@link #NONE} until
   * the next send. Call it from the transport's session, between exchanges.
   *
   * @param ticker the clock to read, or null for none
   */
  void timeReplies(Ticker ticker);

  /**
   * When the last send handed its bytes on, by the clock given to {@link #timeReplies}.
   *
   * @return the stamp, or {@link #NONE} when none was taken since timing started
   */
  long sentNanos();

  /**
   * When the first bytes after the last send arrived, by the same clock; never before
   * {@link #sentNanos()}.
   *
   * @return the stamp, or {@link #NONE} when nothing has arrived since the last send
   */
  long firstByteNanos();
}
