package io.weft.transport;

import java.net.ProtocolException;
import java.nio.charset.StandardCharsets;

/**
 * The peer sent something the reader cannot accept: a line over its limit, a malformed length,
 * a reply of the wrong kind. The message quotes the offending input, escaped and cut short with
 * {@link #quote(CharSequence)} or {@link #quote(byte[], int, int)}.
 *
 * <p>Protocol clients throw this (or a subclass) for bad input. It ends the session it happened
 * in; other sessions are unaffected.
 */
public class ProtocolViolationException extends ProtocolException {
  private static final long serialVersionUID = 1L;

  /** How many characters of the offending input a message quotes at most. */
  public static final int QUOTE_LIMIT = 64;

  /**
   * Creates the exception.
   *
   * @param message what was wrong, quoting the offending input
   */
  public ProtocolViolationException(String message) {
    super(message);
  }

  /**
   * Creates the exception with its cause.
   *
   * @param message what was wrong, quoting the offending input
   * @param cause what made the input unusable
   */
  @SuppressWarnings("this-escape") // ProtocolException has no (message, cause) constructor
  public ProtocolViolationException(String message, Throwable cause) {
    super(message);
    initCause(cause);
  }

  /**
   * Returns {@code input} in double quotes, with control characters, quotes and backslashes
   * escaped as in Java source, cut to {@value #QUOTE_LIMIT} characters with {@code ...} after
   * the closing quote when longer.
   *
   * @param input the text to quote
   * @return the quoted text
   */
  public static String quote(CharSequence input) {
    if (input == null) {
      return "null";
    }
    StringBuilder out = new StringBuilder(Math.min(input.length(), QUOTE_LIMIT) + 8);
    out.append('"');
    int n = Math.min(input.length(), QUOTE_LIMIT);
    for (int i = 0; i < n; i++) {
      escape(input.charAt(i), out);
    }
    out.append('"');
    if (input.length() > QUOTE_LIMIT) {
      out.append("...");
    }
    return out.toString();
  }

  /**
   * Returns the bytes {@code input[offset..offset+length)} quoted as by {@link #quote(CharSequence)}:
   * decoded as UTF-8 where they are valid, with each byte that is not printable ASCII shown
   * as {@code \xNN}.
   *
   * @param input the bytes
   * @param offset the first byte to quote
   * @param length how many bytes to quote
   * @return the quoted bytes
   */
  public static String quote(byte[] input, int offset, int length) {
    StringBuilder out = new StringBuilder(Math.min(length, QUOTE_LIMIT) + 8);
    out.append('"');
    int n = Math.min(length, QUOTE_LIMIT);
    for (int i = 0; i < n; i++) {
      int b = input[offset + i] & 0xff;
      if (b >= 0x80) {
        hex(b, out);
      } else {
        escape((char) b, out);
      }
    }
    out.append('"');
    if (length > QUOTE_LIMIT) {
      out.append("...");
    }
    return out.toString();
  }

  /**
   * Returns {@code quote(input.getBytes(UTF_8))}-style quoting of raw bytes.
   *
   * @param input the bytes to quote
   * @return the quoted bytes
   */
  public static String quote(byte[] input) {
    return quote(input, 0, input.length);
  }

  private static void escape(char c, StringBuilder out) {
    switch (c) {
      case '\r': out.append("\\r"); break;
      case '\n': out.append("\\n"); break;
      case '\t': out.append("\\t"); break;
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      default:
        if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
          hex(c, out);
        } else {
          out.append(c);
        }
    }
  }

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /** {@code \xNN}: without String.format, whose parsing costs a kilobyte or so per byte quoted. */
  private static void hex(int b, StringBuilder out) {
    out.append('\\').append('x').append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
  }

  static String utf8(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
