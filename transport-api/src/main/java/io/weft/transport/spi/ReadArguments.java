package io.weft.transport.spi;

import io.weft.transport.LineParser;
import io.weft.transport.LineParsing;
import io.weft.transport.Transport;
import java.nio.charset.Charset;
import java.util.Objects;

/**
 * The argument checks of {@link Transport}'s reads, in one place for both shapes of the read loop
 * ({@link BlockingReads} and the suspending one) and the transports that call them, so that every
 * transport refuses the same misuse with the same exception.
 */
public final class ReadArguments {
  private ReadArguments() {}

  /**
   * The argument checks of a line read.
   *
   * @param limit the line limit, not negative
   * @param charset the charset, not null
   */
  public static void checkLine(int limit, Charset charset) {
    Objects.requireNonNull(charset, "charset");
    if (limit < 0) {
      throw new IllegalArgumentException("limit < 0: " + limit);
    }
  }

  /**
   * Checks {@link LineParsing#parseLine(int, LineParser)}'s arguments, in the
   * order and with the messages of {@link #checkLine(int, Charset)}.
   *
   * @param limit the line's limit, not negative
   * @param parser the parser, not null
   */
  public static void checkLine(int limit, LineParser<?> parser) {
    Objects.requireNonNull(parser, "parser");
    if (limit < 0) {
      throw new IllegalArgumentException("limit < 0: " + limit);
    }
  }

  /**
   * The array {@link Transport#readBytes(int)} fills, after its argument check.
   *
   * @param byteCount the count, not negative
   * @return a new array of {@code byteCount} bytes
   */
  public static byte[] newBytes(int byteCount) {
    if (byteCount < 0) {
      throw new IllegalArgumentException("byteCount < 0: " + byteCount);
    }
    return new byte[byteCount];
  }
}
