package io.weft.continuations.spi;

import io.weft.transport.LineParser;
import io.weft.transport.LineParsing;
import io.weft.transport.Transport;
import io.weft.transport.TransportClosedException;
import io.weft.transport.spi.Deadlines;
import io.weft.transport.spi.Inbound;
import io.weft.transport.spi.ParsedLineFailure;
import io.weft.transport.spi.ReadArguments;
import java.io.IOException;
import java.nio.charset.Charset;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import org.apache.commons.javaflow.api.continuable;

/**
 * The read loops of every transport that suspends a continuation instead of blocking: poll the
 * transport's {@code Inbound} (transport-api's internal view of its received bytes); if the bytes
 * are there, return at once (the fast path, counted); otherwise wait for input and poll again. The
 * wait is the transport's {@link Waiter}'s steps, none of which suspends, around a call to
 * {@link Suspend#await} made from the loop itself. A suspending transport's {@link Transport} read
 * methods call these straight from their own {@code @continuable} frames, so a read that suspends
 * has three rewritten frames: the transport's read method, the loop, {@code Suspend.await}.
 *
 * <p>This is the second of the two shapes of the loop; the first, {@code BlockingReads} in
 * {@code transport-api}, is the same loop for transports that block, kept free of JavaFlow so
 * that they pay nothing for continuations. This one must be rewritten, and is, at build time
 * with this module. It adds no frame to the suspend path: it takes the place of the private loop
 * each transport used to have between its public read method and its wait, and of the wait.
 *
 * <p>One per transport, made with it; used by that transport's one reader at a time.
 */
public final class SuspendingReads {

  /**
   * How a suspending transport waits for input and fails; given to {@link SuspendingReads}. A
   * wait, after a poll that answered "need more", is: {@link #beginWait}; unless that said the
   * input may be there already, {@link Suspend#await} with this waiter as the registration, again
   * after each {@link #nextSlice} while the suspends time out; then {@link #endWait} once woken, or
   * {@link #abandonWait} if the suspend or {@code nextSlice} threw an exception. None of these
   * suspends: the loop calls {@code Suspend.await} itself, so the wait adds no rewritten frame of
   * its own.
   *
   * <p>A waiter belongs to one transport, which has one reader at a time, so it may keep what one
   * wait needs between its steps in fields.
   */
  public interface Waiter extends WaitRegistration {
    /**
     * Throws if the transport is closed; called once at the start of every read.
     *
     * @throws TransportClosedException if it is closed
     */
    void checkOpen() throws TransportClosedException;

    /**
     * Begins a wait until input may have arrived (bytes, end of stream, a failure, a close):
     * checks that the caller may wait and marks the reader as waiting.
     *
     * @param awaited what the read waits for, for a timeout's message
     * @return the timeout of the first suspend, in nanoseconds (above 0, or {@code Deadlines.FOREVER});
     *     0 when the input may be there already (say, a spin saw it come): the wait is then over,
     *     ended by this call, and the loop polls again
     * @throws IOException if the read's time is already up, or it may not wait here; the wait is
     *     then over, ended by this call
     */
    long beginWait(long awaited) throws IOException;

    /**
     * After a suspend of {@code slice} that timed out: the timeout of the next suspend of the same
     * wait, or the read's timeout thrown when the wait is over. The loop then calls
     * {@link #abandonWait}.
     *
     * @param slice the timeout of the suspend that ran out
     * @param awaited what the read waits for, for a timeout's message
     * @return the next suspend's timeout, above 0
     * @throws IOException the read's timeout, when the wait's time is up
     */
    long nextSlice(long slice, long awaited) throws IOException;

    /**
     * Ends a wait whose suspend was woken; may throw what the wake-up meant (a close, a
     * failure) before the loop polls again.
     *
     * @throws IOException if the transport was closed or failed meanwhile
     */
    void endWait() throws IOException;

    /**
     * Ends a wait that threw (its timeout, the run's cancel, a failure): the reader no longer
     * waits, and its wake-up is forgotten where the transport must forget it. Throws nothing.
     */
    void abandonWait();

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
  private final LongAdder immediate;

  /**
   * Loops over {@code inbound}, waiting through {@code waiter}.
   *
   * @param inbound the transport's received bytes
   * @param waiter how the transport waits and fails
   * @param immediate counts the reads that found their bytes buffered and returned at once
   */
  public SuspendingReads(Inbound inbound, Waiter waiter, LongAdder immediate) {
    this.inbound = Objects.requireNonNull(inbound, "inbound");
    this.waiter = Objects.requireNonNull(waiter, "waiter");
    this.immediate = Objects.requireNonNull(immediate, "immediate");
  }

  /**
   * {@link Transport#readLine(int, Charset)} when not {@code strict},
   * {@link Transport#readLineStrict(int, Charset)} when {@code strict}.
   *
   * @param limit the most bytes the line may take, without its line end
   * @param strict whether the end of the stream throws
   * @param charset the line's charset
   * @return the line without its line end; null at a clean end of stream when not strict
   * @throws IOException as the transport methods say
   */
  @continuable
  public String readLine(int limit, boolean strict, Charset charset) throws IOException {
    ReadArguments.checkLine(limit, charset);
    waiter.checkOpen();
    try {
      String line = inbound.pollLine(limit, strict, charset);
      if (line != null || (!strict && inbound.isDrained())) {
        immediate.increment();
        return line;
      }
      long awaited = Deadlines.line(limit);
      do {
        // The wait, in this frame (see Waiter).
        long slice = waiter.beginWait(awaited);
        if (slice > 0L) {
          // No finally: a suspension unwinds this frame without running one, and it is no end.
          try {
            while (!Suspend.await(waiter, slice)) {
              slice = waiter.nextSlice(slice, awaited);
            }
          } catch (IOException | RuntimeException e) {
            waiter.abandonWait();
            throw e;
          }
          waiter.endWait();
        }
        line = inbound.pollLine(limit, strict, charset);
      } while (line == null && (strict || !inbound.isDrained()));
      return line;
    } catch (SessionCancelledException e) {
      throw e; // the run's cancel, no failure of the transport: see SessionCancelledException
    } catch (IOException e) {
      throw waiter.failed(e);
    }
  }

  /**
   * {@link LineParsing#parseLine(int, LineParser)}: a strict line's bytes handed to {@code parser}
   * where they arrived; what the parser throws is thrown as it is, past the failure policy. The
   * parser runs in this frame and never suspends.
   *
   * @param <T> what the line parses to
   * @param limit the most bytes the line may take, without its line end
   * @param parser parses the line's bytes
   * @return what the parser returned
   * @throws IOException as the transport method says
   */
  @continuable
  @SuppressWarnings("unchecked")
  public <T> T parseLine(int limit, LineParser<T> parser) throws IOException {
    ReadArguments.checkLine(limit, parser);
    waiter.checkOpen();
    try {
      Object value = inbound.pollLine(limit, parser);
      if (value != Inbound.NO_LINE_YET) {
        immediate.increment();
        return (T) value;
      }
      long awaited = Deadlines.line(limit);
      do {
        // The wait, in this frame (see Waiter).
        long slice = waiter.beginWait(awaited);
        if (slice > 0L) {
          // No finally: a suspension unwinds this frame without running one, and it is no end.
          try {
            while (!Suspend.await(waiter, slice)) {
              slice = waiter.nextSlice(slice, awaited);
            }
          } catch (IOException | RuntimeException e) {
            waiter.abandonWait();
            throw e;
          }
          waiter.endWait();
        }
        value = inbound.pollLine(limit, parser);
      } while (value == Inbound.NO_LINE_YET);
      return (T) value;
    } catch (ParsedLineFailure e) {
      throw e.unwrap();
    } catch (SessionCancelledException e) {
      throw e; // the run's cancel, no failure of the transport: see SessionCancelledException
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
  @continuable
  public byte[] readFully(byte[] dst, int offset, int length) throws IOException {
    Objects.checkFromIndexSize(offset, length, dst.length);
    waiter.checkOpen();
    try {
      if (inbound.pollFully(dst, offset, length)) {
        immediate.increment();
        return dst;
      }
      long awaited = Deadlines.bytes(length);
      do {
        // The wait, in this frame (see Waiter).
        long slice = waiter.beginWait(awaited);
        if (slice > 0L) {
          try {
            while (!Suspend.await(waiter, slice)) {
              slice = waiter.nextSlice(slice, awaited);
            }
          } catch (IOException | RuntimeException e) {
            waiter.abandonWait();
            throw e;
          }
          waiter.endWait();
        }
      } while (!inbound.pollFully(dst, offset, length));
      return dst;
    } catch (SessionCancelledException e) {
      throw e; // the run's cancel, no failure of the transport: see SessionCancelledException
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
  @continuable
  public int read(byte[] dst, int offset, int length) throws IOException {
    Objects.checkFromIndexSize(offset, length, dst.length);
    waiter.checkOpen();
    try {
      int n = inbound.poll(dst, offset, length);
      if (n != Inbound.NO_BYTES_YET) {
        immediate.increment();
        return n;
      }
      do {
        // The wait, in this frame (see Waiter).
        long slice = waiter.beginWait(Deadlines.ANY_BYTES);
        if (slice > 0L) {
          try {
            while (!Suspend.await(waiter, slice)) {
              slice = waiter.nextSlice(slice, Deadlines.ANY_BYTES);
            }
          } catch (IOException | RuntimeException e) {
            waiter.abandonWait();
            throw e;
          }
          waiter.endWait();
        }
        n = inbound.poll(dst, offset, length);
      } while (n == Inbound.NO_BYTES_YET);
      return n;
    } catch (SessionCancelledException e) {
      throw e; // the run's cancel, no failure of the transport: see SessionCancelledException
    } catch (IOException e) {
      throw waiter.failed(e);
    }
  }
}
