package io.weft.transport;

import java.io.IOException;

/**
 * Parses one line where it lies, for {@link LineParsing#parseLine(int, LineParser)}: the line's
 * bytes, without its line end, in the transport's own buffer.
 *
 * <p>The bytes are valid only during the call: a parser copies what it keeps, and must neither
 * keep the array nor write to it. It must not call the transport (it may run under the
 * transport's lock, on the transport's I/O thread in continuation mode), and it never waits: the
 * library's transports refuse a read from it with an {@link IllegalStateException}.
 *
 * @param <T> what a line parses to
 */
@FunctionalInterface
public interface LineParser<T> {
  /**
   * Parses {@code buf[offset..offset+length)}, a whole line without its line end.
   *
   * @param buf the array holding the line; valid only during this call, never to be written
   * @param offset where the line starts
   * @param length the line's bytes, without its line end (0 for an empty line)
   * @return what the line parses to; the transport's {@code parseLine} returns it
   * @throws IOException if the line does not parse (thrown from {@code parseLine} as it is,
   *     without closing the transport, as is anything else the parser throws)
   */
  T parse(byte[] buf, int offset, int length) throws IOException;
}
