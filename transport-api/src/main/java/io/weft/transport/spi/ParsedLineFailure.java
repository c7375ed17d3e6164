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

  private ParsedLineFailure(Throwable cause) {
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
   * @throws ParsedLineFailure carrying whatever the parser threw: an exception, or an
   *     {@code Error} (so that the poll that ran it still ends as after a parse: MINA's and
   *     Netty's read resumption runs); an {@code IllegalStateException} if the parser returned
   *     {@link Inbound#NO_LINE_YET}
   */
  public static <T> T parse(LineParser<T> parser, byte[] buf, int offset, int length) {
    T value;
    try {
      value = parser.parse(buf, offset, length);
    } catch (Throwable e) {
      throw new ParsedLineFailure(e);
    }
    if (value == Inbound.NO_LINE_YET) {
      // The loops would read it as "no line yet" and wait for another line: this one is gone.
      throw new ParsedLineFailure(new IllegalStateException("a LineParser returned Inbound.NO_LINE_YET"));
    }
    return value;
  }

  /**
   * The parser's throwable, to throw: returns it if it is an {@code IOException}, throws it
   * otherwise ({@code RuntimeException}s, {@code Error}s, and a checked exception thrown
   * sneakily, as they are).
   *
   * @return the parser's {@code IOException}
   */
  public IOException unwrap() {
    Throwable cause = getCause();
    if (cause instanceof IOException) {
      return (IOException) cause;
    }
    throw ParsedLineFailure.<RuntimeException>sneaky(cause);
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> E sneaky(Throwable t) throws E {
    throw (E) t;
  }
}
