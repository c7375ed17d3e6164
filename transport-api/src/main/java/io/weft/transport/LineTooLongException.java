package io.weft.transport;

/**
 * A line did not end within its byte limit. The message gives the limit and quotes the start
 * of the line.
 */
public class LineTooLongException extends ProtocolViolationException {
  private static final long serialVersionUID = 1L;

  /** The limit, in bytes, that the line went over. */
  private final long limit;

  /**
   * Creates the exception.
   *
   * @param limit the limit, in bytes, that the line went over
   * @param quotedStart the start of the line, quoted by {@link ProtocolViolationException#quote}
   */
  public LineTooLongException(long limit, String quotedStart) {
    super("line longer than " + limit + " bytes: " + quotedStart);
    this.limit = limit;
  }

  /**
   * The limit, in bytes, that the line went over.
   *
   * @return the limit in bytes
   */
  public long limit() {
    return limit;
  }
}
