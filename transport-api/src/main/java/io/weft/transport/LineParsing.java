package io.weft.transport;

import java.io.EOFException;
import java.io.IOException;

/**
 * An optional capability of a {@link Transport}: a strict line's bytes handed, where they arrived
 * in the transport's own buffer, to a {@link LineParser}, with no {@code byte[]} or {@code String}
 * made for the line.
 *
 * <p>Not part of the {@code Transport} contract: a transport need not offer it, and one of your own
 * (a forwarding or logging one, say) keeps working without it. A client uses it only when it is
 * there, {@code transport instanceof LineParsing}, and otherwise reads the line with
 * {@link Transport#readLineStrict(int, java.nio.charset.Charset)} and parses that, as
 * {@code RedisClient} does. The library's transports offer it (the socket, MINA and Netty
 * transports in every mode, the simulation's, the in-memory test transport), and so does the
 * continuation runtime's checked wrapper, over any transport: in continuation mode the runtime
 * counts {@link #parseLine} as a wait, as it counts {@code Transport}'s reads.
 *
 * <p>A transport that offers it and forwards to another must forward {@code parseLine} to a
 * delegate that offers it, or read the line with the delegate's {@code readLineStrict} itself; in
 * continuation mode an implementation is rewritten like any other method that waits (in the
 * instrumented packages, or marked {@code @continuable} by its library).
 */
public interface LineParsing {
  /**
   * Reads a line as {@link Transport#readLineStrict(int)} does and hands its bytes, without the
   * line end, to {@code parser}, returning what the parser returns. The bytes are valid only
   * during the parser's call (see {@link LineParser}). The line is taken off the input before the
   * parser runs, whatever the parser does.
   *
   * <p>Everything else is {@code readLineStrict}'s: the line end (LF, or CRLF; a CR elsewhere is
   * part of the line), the limit, the waits and their timeouts, and the exceptions with their
   * messages. What the parser throws (an exception or an error) is thrown as it is and does not
   * close the transport, as a parse of {@code readLineStrict}'s line by the caller would not. A
   * parser must not call this transport; one that reads from it is refused by the library's
   * transports with an {@link IllegalStateException}, which the caller of {@code parseLine} gets
   * (the read could move the line under the parser's view).
   *
   * @param <T> what the line parses to
   * @param limit the most bytes the line may take, without its line end
   * @param parser parses the line's bytes; must not call this transport
   * @return what {@code parser} returned
   * @throws LineTooLongException if no line end is found within {@code limit} bytes
   * @throws EOFException at the end of the stream, quoting the partial line if any
   * @throws IllegalArgumentException if {@code limit < 0}
   * @throws NullPointerException if {@code parser} is null
   * @throws IOException as {@link Transport#readLineStrict(int)}, or what {@code parser} threw
   */
  <T> T parseLine(int limit, LineParser<T> parser) throws IOException;
}
