package io.weft.transport.spi;

import io.weft.transport.LineParser;
import java.io.IOException;

/**
 * Carries what a {@link LineParser} threw out of an {@link Inbound}'s poll and through a read
 * loop, so that it reaches the caller of {@code parseLine} as the parser threw it: a parser's
 * exception is no failure of the transport, and a read loop's failure policy (close on an
 * {@code IOException}) must not see it. The loops catch it and throw {@link #unwrap()}'s answer.
 * Never seen outside a transport.
 */
public final class ParsedLineFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private ParsedLineFailure(Exception cause) {
    super(null, cause, false, false);
  }

  /**
   * Calls {@code parser} on the line, carrying its exception in a {@link ParsedLineFailure}.
   *
   * @param <T> what the line parses to
   * @param parser the caller's parser
   * @param buf the array holding the line
   * @param offset where the line starts
   * @param length the line's bytes, without its line end
   * @return what the parser returned
   * @throws ParsedLineFailure carrying what the parser threw (an {@code IOException} or a
   *     {@code RuntimeException})
   */
  public static <T> T parse(LineParser<T> parser, byte[] buf, int offset, int length) {
    try {
      return parser.parse(buf, offset, length);
    } catch (IOException | RuntimeException e) {
      throw new ParsedLineFailure(e);
    }
  }

  /**
   * The parser's exception, to throw: returns it if it is an {@code IOException}, throws it if it
   * is a {@code RuntimeException}.
   *
   * @return the parser's {@code IOException}
   */
  public IOException unwrap() {
    Throwable cause = getCause();
    if (cause instanceof RuntimeException) {
      throw (RuntimeException) cause;
    }
    return (IOException) cause;
  }
}
