package io.weft.transport.spi;

import io.weft.transport.LineParser;
import io.weft.transport.LineParsing;
import io.weft.transport.Transport;
import io.weft.transport.TransportClosedException;
import java.io.IOException;
import java.nio.charset.Charset;
import java.util.Objects;

/**
 * The read loops of every transport that blocks its caller: poll the {@link Inbound}; if it
 * needs more, wait for input and poll again. A transport's {@link Transport} read methods call
 * these; what differs between transports is only how it waits and what a failure does to it,
 * which it gives as a {@link Waiter}.
 *
 * <p>This is one of the two shapes of the loop. The other,
 * {@code io.weft.continuations.spi.SuspendingReads}, is the same loop rewritten to suspend a
 * continuation, and lives where the JavaFlow rewriting is; this one stays plain so that a
 * blocking transport pays nothing for continuations.
 *
 * <p>One per transport, made with it; used by that transport's one reader at a time.
 */
public final class BlockingReads {

  /** How a blocking transport waits for input and fails; given to {@link BlockingReads}. */
  public interface Waiter {
    /**
     * Throws if the transport is closed; called once at the start of every read.
     *
     * @throws TransportClosedException if it is closed
     */
    void checkOpen() throws TransportClosedException;

    /**
     * Blocks until input may have arrived (bytes, end of stream, a failure, a close), after a
     * poll that answered "need more"; the loop then polls again.
     *
     * @param awaited what the read waits for, for a timeout's message: {@link Deadlines#line},
     *     {@link Deadlines#bytes} or {@link Deadlines#ANY_BYTES}
     * @throws IOException if the wait times out or the transport fails or is closed meanwhile
     */
    void awaitInput(long awaited) throws IOException;

    /**
     * Applies the transport's failure policy to a read that failed (typically: close on a
     * timeout or an I/O failure, stay open on end of stream or a protocol violation).
     *
     * @param e what the read failed with
     * @return the exception to throw, usually {@code e}
     */
    IOException failed(IOException e);
  }

  private final Inbound inbound;
  private final Waiter waiter;

  /**
   * Loops over {@code inbound}, waiting through {@code waiter}.
   *
   * @param inbound the transport's received bytes
   * @param waiter how the transport waits and fails
   */
  public BlockingReads(Inbound inbound, Waiter waiter) {
    this.inbound = Objects.requireNonNull(inbound, "inbound");
    this.waiter = Objects.requireNonNull(waiter, "waiter");
  }

  /**
   * {@link Transport#readLine(int, java.nio.charset.Charset)} when not {@code strict},
   * {@link Transport#readLineStrict(int, java.nio.charset.Charset)} when {@code strict}.
   *
   * @param limit the most bytes the line may take, without its line end
   * @param strict whether the end of the stream throws
   * @param charset the line's charset
   * @return the line without its line end; null at a clean end of stream when not strict
   * @throws IOException as the transport methods say
   */
  public String readLine(int limit, boolean strict, Charset charset) throws IOException {
    ReadArguments.checkLine(limit, charset);
    waiter.checkOpen();
    try {
      for (;;) {
        String line = inbound.pollLine(limit, strict, charset);
        if (line != null || (!strict && inbound.isDrained())) {
          return line;
        }
        waiter.awaitInput(Deadlines.line(limit));
      }
    } catch (IOException e) {
      throw waiter.failed(e);
    }
  }

  /**
   * {@link LineParsing#parseLine(int, LineParser)}: a strict line's bytes handed to {@code parser}
   * where they lie; what the parser throws is thrown as it is, past the failure policy.
   *
   * @param <T> what the line parses to
   * @param limit the most bytes the line may take, without its line end
   * @param parser parses the line's bytes
   * @return what the parser returned
   * @throws IOException as the transport method says
   */
  @SuppressWarnings("unchecked")
  public <T> T parseLine(int limit, LineParser<T> parser) throws IOException {
    ReadArguments.checkLine(limit, parser);
    waiter.checkOpen();
    try {
      for (;;) {
        Object value = inbound.pollLine(limit, parser);
        if (value != Inbound.NO_LINE_YET) {
          return (T) value;
        }
        waiter.awaitInput(Deadlines.line(limit));
      }
    } catch (ParsedLineFailure e) {
      throw e.unwrap();
    } catch (IOException e) {
      throw waiter.failed(e);
    }
  }

  /**
   * {@link Transport#readFully(byte[], int, int)}.
   *
   * @param dst where the bytes go
   * @param offset the first index of {@code dst} to fill
   * @param length how many bytes to read
   * @return {@code dst}, so that {@link Transport#readBytes(int)} is
   *     {@code readFully(ReadArguments.newBytes(byteCount), 0, byteCount)} without a frame of its own
   * @throws IOException as the transport method says
   */
  public byte[] readFully(byte[] dst, int offset, int length) throws IOException {
    Objects.checkFromIndexSize(offset, length, dst.length);
    waiter.checkOpen();
    try {
      while (!inbound.pollFully(dst, offset, length)) {
        waiter.awaitInput(Deadlines.bytes(length));
      }
      return dst;
    } catch (IOException e) {
      throw waiter.failed(e);
    }
  }

  /**
   * {@link Transport#read(byte[], int, int)}.
   *
   * @param dst where the bytes go
   * @param offset the first index of {@code dst} to fill
   * @param length the most bytes to read
   * @return the number of bytes read, or -1 at the end of the stream
   * @throws IOException as the transport method says
   */
  public int read(byte[] dst, int offset, int length) throws IOException {
    Objects.checkFromIndexSize(offset, length, dst.length);
    waiter.checkOpen();
    try {
      for (;;) {
        int n = inbound.poll(dst, offset, length);
        if (n != Inbound.NO_BYTES_YET) {
          return n;
        }
        waiter.awaitInput(Deadlines.ANY_BYTES);
      }
    } catch (IOException e) {
      throw waiter.failed(e);
    }
  }
}
