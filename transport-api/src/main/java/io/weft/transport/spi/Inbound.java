package io.weft.transport.spi;

import io.weft.transport.LineParser;
import io.weft.transport.LineTooLongException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * A transport's received bytes as its read loops see them ({@link BlockingReads}, and the
 * suspending loops of {@code io.weft.continuations.spi.SuspendingReads}): polls that take a line
 * or a run of bytes off the head if enough has arrived, and otherwise answer "need more" at once,
 * consuming nothing, so that the loop can wait its own way and poll again. A poll never waits.
 *
 * <p>{@link InboundBuffer} is one, for a transport that fills it on the reader's own thread; a
 * transport filled from an I/O thread wraps one with its lock (and may throw its close or
 * failure from the polls).
 *
 * <table>
 *   <caption>How each poll says "need more"</caption>
 *   <tr><th>poll</th><th>done</th><th>need more</th><th>end of stream</th></tr>
 *   <tr><td>{@link #pollLine}</td><td>the line</td><td>{@code null}</td><td>strict:
 *       {@link EOFException}; lenient: the partial line, or {@code null} with
 *       {@link #isDrained()} true</td></tr>
 *   <tr><td>{@link #pollFully}</td><td>true</td><td>false</td><td>{@link EOFException}</td></tr>
 *   <tr><td>{@link #poll}</td><td>bytes copied</td><td>{@link #NO_BYTES_YET}</td><td>-1</td></tr>
 * </table>
 */
public interface Inbound {
  /**
   * What {@link #poll} returns when nothing is buffered and the stream has not ended: the caller
   * must wait for more input. (-1 is end of stream, as in {@code InputStream.read}.)
   */
  int NO_BYTES_YET = -2;

  /**
   * Takes a line off the head if a whole one is buffered.
   *
   * @param limit the most bytes the line may take, without its terminator
   * @param strict true to throw at the end of the stream, false to return what is left
   * @param charset the line's charset
   * @return the line without its terminator; or {@code null} when there is no line to take now:
   *     more input is needed, or (only when not {@code strict}) the stream has ended with nothing
   *     left, which {@link #isDrained()} then tells
   * @throws LineTooLongException once {@code limit} bytes have arrived without a line end
   * @throws EOFException when {@code strict} and the stream ended before a line end
   * @throws IllegalArgumentException if {@code limit < 0}
   * @throws IOException whatever ended the transport's input (its close, a failure)
   */
  String pollLine(int limit, boolean strict, Charset charset) throws IOException;

  /**
   * What {@link #pollLine(int, LineParser)} returns when no whole line is buffered yet: the
   * caller must wait for more input. A parser must not return it: {@link ParsedLineFailure#parse}
   * refuses it with an {@code IllegalStateException}.
   */
  Object NO_LINE_YET = new Object() {
    @Override
    public String toString() {
      return "NO_LINE_YET";
    }
  };

  /**
   * Takes a line off the head if a whole one is buffered, as a strict {@link #pollLine} does, and
   * hands its bytes, where they lie, to {@code parser} (for {@code LineParsing.parseLine}). The line
   * is consumed before the parser runs; what the parser throws comes out carried in a
   * {@link ParsedLineFailure}. This default parses a copy of the line taken with
   * {@code pollLine(limit, true, ISO_8859_1)}, whose chars are the line's bytes; a buffer
   * overrides it to parse in place.
   *
   * @param limit the most bytes the line may take, without its terminator
   * @param parser parses the line's bytes
   * @return what the parser returned, or {@link #NO_LINE_YET} when more input is needed
   * @throws LineTooLongException once {@code limit} bytes have arrived without a line end
   * @throws EOFException when the stream ended before a line end
   * @throws IllegalArgumentException if {@code limit < 0}
   * @throws ParsedLineFailure carrying what the parser threw
   * @throws IOException whatever ended the transport's input (its close, a failure)
   */
  default Object pollLine(int limit, LineParser<?> parser) throws IOException {
    String line = pollLine(limit, true, StandardCharsets.ISO_8859_1);
    if (line == null) {
      return NO_LINE_YET;
    }
    byte[] bytes = line.getBytes(StandardCharsets.ISO_8859_1);
    return ParsedLineFailure.parse(parser, bytes, 0, bytes.length);
  }

  /**
   * Copies exactly {@code length} bytes into {@code dst} if that many are buffered.
   *
   * @param dst where the bytes go
   * @param offset the first index of {@code dst} to fill
   * @param length how many bytes to take
   * @return true if done; false if more input is needed
   * @throws EOFException when the stream ended with fewer than {@code length} bytes buffered
   * @throws IOException whatever ended the transport's input (its close, a failure)
   */
  boolean pollFully(byte[] dst, int offset, int length) throws IOException;

  /**
   * Copies up to {@code length} buffered bytes into {@code dst}.
   *
   * @param dst where the bytes go
   * @param offset the first index of {@code dst} to fill
   * @param length the most bytes to take
   * @return bytes copied (at least 1 when {@code length > 0}, 0 when it is 0); -1 at the end of
   *     the stream; {@link #NO_BYTES_YET} when more input is needed
   * @throws IOException whatever ended the transport's input (its close, a failure)
   */
  int poll(byte[] dst, int offset, int length) throws IOException;

  /**
   * True once the stream has ended and every byte of it has been taken: no poll will ever take
   * anything again. This is what tells a lenient {@link #pollLine}'s {@code null} at a clean end
   * of stream from its {@code null} for "need more".
   *
   * @return true if the stream has ended and nothing is left
   * @throws IOException whatever ended the transport's input (its close, a failure)
   */
  boolean isDrained() throws IOException;
}
