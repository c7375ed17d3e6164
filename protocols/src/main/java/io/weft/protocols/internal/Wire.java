package io.weft.protocols.internal;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.Transport;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Number parsing and exact reads for protocol parsers, failing with messages that quote the
 * offending input.
 *
 * <p>Everything here that touches the transport is a plain static method with plain loops, so
 * that continuation mode can rewrite it to suspend like the clients that call it.
 */
public final class Wire {
  private Wire() {}

  /**
   * Parses {@code text[start..end)} as a decimal {@code long}: an optional {@code -} and at
   * least one digit, nothing else (no {@code +}, no spaces).
   *
   * @param what what the number is, for the message ("bulk length")
   * @param line the whole line it came from, quoted in the message
   * @throws ProtocolViolationException if it is not such a number or overflows
   */
  public static long parseLong(String text, int start, int end, String what, String line)
      throws ProtocolViolationException {
    int i = start;
    boolean negative = false;
    if (i < end && text.charAt(i) == '-') {
      negative = true;
      i++;
    }
    if (i >= end) {
      throw notANumber(what, line);
    }
    long value = 0;
    for (; i < end; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        throw notANumber(what, line);
      }
      int digit = c - '0';
      // Accumulate negatively so that Long.MIN_VALUE parses too.
      if (value < (Long.MIN_VALUE + digit) / 10) {
        throw new ProtocolViolationException(what + " out of range: " + ProtocolViolationException.quote(line));
      }
      value = value * 10 - digit;
    }
    if (!negative) {
      if (value == Long.MIN_VALUE) {
        throw new ProtocolViolationException(what + " out of range: " + ProtocolViolationException.quote(line));
      }
      return -value;
    }
    return value;
  }

  /**
   * {@link #parseLong(String, int, int, String, String)} of a line's bytes where they lie, without
   * a {@code String}: {@code buf[start..end)} is the number, {@code buf[lineStart..end)} the whole
   * line (for the message). A number that does not parse is handed, as the line's {@code String},
   * to the {@code String} form, so the exception and its message are that form's exactly.
   */
  public static long parseLong(byte[] buf, int lineStart, int start, int end, String what)
      throws ProtocolViolationException {
    int i = start;
    boolean negative = false;
    if (i < end && buf[i] == '-') {
      negative = true;
      i++;
    }
    if (i < end) {
      long value = 0;
      for (; i < end; i++) {
        int digit = buf[i] - '0';
        // Accumulate negatively so that Long.MIN_VALUE parses too.
        if (digit < 0 || digit > 9 || value < (Long.MIN_VALUE + digit) / 10) {
          break;
        }
        value = value * 10 - digit;
      }
      if (i == end && (negative || value != Long.MIN_VALUE)) {
        return negative ? value : -value;
      }
    }
    // Not a number, or out of range: the String form throws, quoting the line as it always has.
    // The bytes before start are ASCII (a type byte), so start - lineStart indexes the String too.
    String line = new String(buf, lineStart, end - lineStart, StandardCharsets.UTF_8);
    return parseLong(line, start - lineStart, line.length(), what, line);
  }

  /**
   * Parses {@code text[start..end)} as a hexadecimal number of at most 15 digits (so it fits a
   * long with room to spare), as HTTP chunk sizes are written.
   */
  public static long parseHex(String text, int start, int end, String what, String line)
      throws ProtocolViolationException {
    if (start >= end) {
      throw notANumber(what, line);
    }
    if (end - start > 15) {
      throw new ProtocolViolationException(what + " out of range: " + ProtocolViolationException.quote(line));
    }
    long value = 0;
    for (int i = start; i < end; i++) {
      int digit = Character.digit(text.charAt(i), 16);
      if (digit < 0) {
        throw notANumber(what, line);
      }
      value = value * 16 + digit;
    }
    return value;
  }

  /**
   * Parses {@code text[start..end)} as {@link #parseLong} does, refusing {@code -0}: a length
   * written as negative zero is not a length any peer means, and a lenient reader is one a
   * smuggler can tell apart from a strict one.
   */
  public static long parseLength(String text, int start, int end, String what, String line)
      throws ProtocolViolationException {
    long value = parseLong(text, start, end, what, line);
    if (value == 0 && text.charAt(start) == '-') {
      throw new ProtocolViolationException("negative zero " + what + ": " + ProtocolViolationException.quote(line));
    }
    return value;
  }

  /**
   * Reads exactly {@code length} bytes into {@code into}, allocating as they arrive (never the
   * whole claimed length up front).
   *
   * @param what what is being read, for the message ("body of Content-Length 10")
   * @throws EOFException if the stream ends first, quoting the last bytes that arrived
   */
  public static void readInto(Transport transport, GrowingBytes into, long length, String what)
      throws IOException {
    long done = fill(transport, into, length);
    if (done < length) {
      throw endOfStream(what, done, length, into.quoteTail());
    }
  }

  /** Reads into {@code into} until it holds {@code length} more bytes or the stream ends; returns how many. */
  private static long fill(Transport transport, GrowingBytes into, long length) throws IOException {
    long done = 0;
    while (done < length) {
      int room = into.room(length - done);
      int n = transport.read(into.segment(), into.position(), room);
      if (n < 0) {
        return done;
      }
      into.advance(n);
      done += n;
    }
    return done;
  }

  /**
   * The exception for a stream that ended {@code done} bytes into {@code length} of {@code what}.
   *
   * @param what what was being read, such as {@code chunk of 5 bytes}
   * @param done how many bytes of it came
   * @param length how many were due
   * @param tail the quoted end of what came
   * @return the exception to throw
   */
  public static EOFException endOfStream(String what, long done, long length, String tail) {
    return new EOFException("end of stream in " + what + " after " + done + " of " + length + " bytes: " + tail);
  }

  /**
   * Reads into {@code into} until the end of the stream, allocating as bytes arrive.
   *
   * @param limit the most bytes accepted in all
   * @param over the message when more than {@code limit} bytes arrive
   * @throws ProtocolViolationException with {@code over} once more than {@code limit} bytes arrived
   */
  public static void readToEnd(Transport transport, GrowingBytes into, long limit, String over)
      throws IOException {
    for (;;) {
      // One byte past the limit is enough to know it was passed.
      long wanted = limit - into.size() + 1;
      int room = into.room(wanted);
      int n = transport.read(into.segment(), into.position(), room);
      if (n < 0) {
        return;
      }
      into.advance(n);
      if (into.size() > limit) {
        throw new ProtocolViolationException(over);
      }
    }
  }

  private static ProtocolViolationException notANumber(String what, String line) {
    return new ProtocolViolationException("non-numeric " + what + ": " + ProtocolViolationException.quote(line));
  }

  /**
   * Reads exactly {@code length} bytes into {@code dst} at {@code offset}. Unlike
   * {@link Transport#readFully}, an early end of stream is an {@link EOFException} that says
   * what was being read and quotes the bytes that did arrive.
   *
   * @param what what is being read, for the message ("bulk string of 10 bytes")
   */
  public static void readExactly(Transport transport, byte[] dst, int offset, int length, String what)
      throws IOException {
    int done = readUpTo(transport, dst, offset, length);
    if (done < length) {
      throw endOfStream(what, done, length, ProtocolViolationException.quote(dst, offset, done));
    }
  }

  /** Reads into {@code dst} until {@code length} bytes or the end of the stream; returns how many. */
  private static int readUpTo(Transport transport, byte[] dst, int offset, int length) throws IOException {
    int done = 0;
    while (done < length) {
      int n = transport.read(dst, offset + done, length - done);
      if (n < 0) {
        return done;
      }
      done += n;
    }
    return done;
  }

  /**
   * Reads the two bytes that must follow a length-framed block and checks they are CRLF.
   *
   * @param what what they follow, for the message
   */
  public static void expectCrlf(Transport transport, byte[] scratch, String what) throws IOException {
    int got = crlf(transport, scratch);
    if (got >= 0) {
      throw notCrlf(what, scratch, got);
    }
  }

  /** Reads two bytes into {@code scratch}: -1 if they are CRLF, else how many of them arrived. */
  private static int crlf(Transport transport, byte[] scratch) throws IOException {
    int done = readUpTo(transport, scratch, 0, 2);
    return done == 2 && scratch[0] == '\r' && scratch[1] == '\n' ? -1 : done;
  }

  /**
   * The exception for the bytes after {@code what} that were not CRLF: an end of stream if fewer
   * than two of them ({@code arrived}) came.
   *
   * @param what what the CRLF was due after, such as {@code chunk of 5 bytes}
   * @param scratch the bytes that came
   * @param arrived how many of them came, 0 to 2
   * @return the exception to throw
   */
  public static IOException notCrlf(String what, byte[] scratch, int arrived) {
    if (arrived < 2) {
      return endOfStream("CRLF after " + what, arrived, 2, ProtocolViolationException.quote(scratch, 0, arrived));
    }
    return new ProtocolViolationException("expected CRLF after " + what + " but got "
        + ProtocolViolationException.quote(scratch, 0, 2));
  }
}
