package io.weft.transport;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.Charset;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/**
 * A blocking-style, byte-oriented connection to one peer: the only API a Weft protocol client
 * is written against.
 *
 * <p>The same client code runs on the caller's thread, on a thread per session, on a virtual
 * thread, or as a continuation that is suspended while it waits for the peer. In every case
 * each method below returns only when it is done, exactly as if it had blocked.
 *
 * <h2>Reading</h2>
 * <table>
 *   <caption>What each read does at the edges</caption>
 *   <tr><th>method</th><th>complete input</th><th>clean end of stream</th><th>end of stream part-way</th><th>over the limit</th></tr>
 *   <tr><td>{@link #readLine(int)}</td><td>the line</td><td>{@code null}</td><td>the partial line</td><td>{@link LineTooLongException}</td></tr>
 *   <tr><td>{@link #readLineStrict(int)}</td><td>the line</td><td>{@link EOFException}</td><td>{@link EOFException} quoting what came</td><td>{@link LineTooLongException}</td></tr>
 *   <tr><td>{@link #readFully(byte[], int, int)}</td><td>fills the range</td><td>{@link EOFException}</td><td>{@link EOFException}</td><td>-</td></tr>
 *   <tr><td>{@link #read(byte[], int, int)}</td><td>1 to {@code len} bytes</td><td>-1</td><td>what is there</td><td>-</td></tr>
 * </table>
 *
 * <p>A line ends at LF; a CR immediately before the LF is part of the terminator too. So both
 * CRLF and bare LF are accepted; a CR elsewhere is part of the line. The terminator is never
 * returned. A line's <em>limit</em> counts the bytes of the line without its terminator: a
 * line of exactly {@code limit} bytes is accepted, one byte more is a
 * {@link LineTooLongException}, raised as soon as the limit is passed rather than after the
 * whole line has arrived, so a peer that never sends LF cannot make the reader buffer without
 * bound.
 *
 * <h2>What a read costs</h2>
 * Every implementation keeps a bounded buffer of bytes received and not yet read. A read that
 * the buffer can satisfy returns at once: no wait, no system call, and in continuation mode no
 * suspend. A read that finds the buffer short waits (in continuation mode: suspends the session)
 * until more bytes arrive, takes them, and waits again only if it is still short: the cost is one
 * wait per arrival of bytes that a read was short of, never one per call. So reading a 5-byte
 * header and then its body with two calls, or a frame field by field with
 * {@link io.weft.transport.binary.Binary}'s helpers, costs no more waits than one large read:
 * when the bytes are already here, none.
 *
 * <h2>Writing</h2>
 * Writes are buffered: nothing is sent until {@link #flush()} (or until the buffer holds more
 * than an implementation-defined amount). {@link #writeLine(String)} writes CRLF. String
 * methods without a {@link Charset} use UTF-8.
 *
 * <h2>Timeouts and failure</h2>
 * Every wait is bounded by {@link #timeout()}. A wait that runs out throws
 * {@link TransportTimeoutException}; an I/O failure throws an {@link IOException}. Either way
 * the transport is closed, and every later operation throws {@link TransportClosedException}.
 * A peer that closes shows as end of stream to the reader; a reset shows as an
 * {@code IOException}.
 *
 * <h2>TLS</h2>
 * A transport opened by a connector given {@link TlsSettings} speaks TLS from the start (its
 * connect includes the handshake); a plaintext one can be upgraded in place with
 * {@link #startTls(TlsSettings)}. Either way the reads and writes above then carry plaintext
 * through TLS, with the same contract, and {@link #tlsSession()} tells what was negotiated.
 * A failed handshake is a {@link TlsHandshakeException}, one that runs out of time a
 * {@link TransportTimeoutException}.
 *
 * <h2>Threads</h2>
 * A transport belongs to one session: it is not safe for concurrent use by several threads,
 * except that {@link #close()} may be called from any thread at any time, and makes a pending
 * or later operation fail with {@link TransportClosedException}.
 *
 * <p>This interface has no default methods on purpose: in continuation mode every method that
 * can wait must be rewritten to suspend, which a default method in this interface never is.
 *
 * <p>A transport may also offer {@link LineParsing}, an optional capability outside this
 * contract: a strict line's bytes parsed where they arrived. The library's transports offer it; a
 * client that uses it checks {@code instanceof LineParsing} and otherwise reads with
 * {@link #readLineStrict}, so a transport of your own needs nothing more than this interface.
 */
public interface Transport extends Closeable {

  /**
   * Reads a line of at most {@code limit} bytes and decodes it as UTF-8. Returns {@code null}
   * at a clean end of stream (no bytes left); at an end of stream that cuts a line short,
   * returns that partial line.
   *
   * @throws LineTooLongException if no line end is found within {@code limit} bytes
   * @throws IllegalArgumentException if {@code limit < 0}
   * @param limit the most bytes the line may take, without its line end
   * @return the line without its line end, or null at a clean end of stream
   */
  String readLine(int limit) throws IOException;

  /**
   * As {@link #readLine(int)}, decoding with {@code charset}.
   *
   * @param limit the most bytes the line may take, without its line end
   * @param charset the line's charset
   * @return the line without its line end, or null at a clean end of stream
   * @throws IOException as {@link #readLine(int)}
   */
  String readLine(int limit, Charset charset) throws IOException;

  /**
   * Reads a line of at most {@code limit} bytes and decodes it as UTF-8. On the end of the
   * stream this method throws: an {@link EOFException} quoting the partial line, if any.
   * Protocol parsers use this form.
   *
   * @throws LineTooLongException if no line end is found within {@code limit} bytes
   * @throws IllegalArgumentException if {@code limit < 0}
   * @param limit the most bytes the line may take, without its line end
   * @return the line without its line end
   */
  String readLineStrict(int limit) throws IOException;

  /**
   * As {@link #readLineStrict(int)}, decoding with {@code charset}.
   *
   * @param limit the most bytes the line may take, without its line end
   * @param charset the line's charset
   * @return the line without its line end
   * @throws IOException as {@link #readLineStrict(int)}
   */
  String readLineStrict(int limit, Charset charset) throws IOException;

  /**
   * Reads exactly {@code length} bytes into {@code dst} at {@code offset}.
   *
   * @throws EOFException if the stream ends first, saying how many bytes came
   * @throws IndexOutOfBoundsException if the range does not fit {@code dst}
   * @param dst where the bytes go
   * @param offset the first index of {@code dst} to fill
   * @param length how many bytes to read
   */
  void readFully(byte[] dst, int offset, int length) throws IOException;

  /**
   * Reads exactly {@code byteCount} bytes and returns them.
   *
   * @throws EOFException if the stream ends first
   * @throws IllegalArgumentException if {@code byteCount < 0}
   * @param byteCount how many bytes to read
   * @return the bytes, a new array of {@code byteCount}
   */
  byte[] readBytes(int byteCount) throws IOException;

  /**
   * Reads at least one and at most {@code length} bytes into {@code dst} at {@code offset},
   * waiting only if nothing is buffered. Returns how many bytes were read, or -1 at the end of
   * the stream. Returns 0 only when {@code length} is 0.
   *
   * @throws IndexOutOfBoundsException if the range does not fit {@code dst}
   * @param dst where the bytes go
   * @param offset the first index of {@code dst} to fill
   * @param length the most bytes to read
   * @return the number of bytes read, or -1 at the end of the stream
   * @throws IOException if the read times out or the transport fails
   */
  int read(byte[] dst, int offset, int length) throws IOException;

  /**
   * Buffers {@code src[offset..offset+length)} for sending.
   *
   * @param src the bytes
   * @param offset the first byte to send
   * @param length how many bytes to send
   * @throws IOException if the transport is closed or has failed
   */
  void write(byte[] src, int offset, int length) throws IOException;

  /**
   * Buffers all of {@code src} for sending.
   *
   * @param src the bytes
   * @throws IOException if the transport is closed or has failed
   */
  void write(byte[] src) throws IOException;

  /**
   * Buffers {@code text} encoded as UTF-8.
   *
   * @param text the text
   * @throws IOException if the transport is closed or has failed
   */
  void write(String text) throws IOException;

  /**
   * Buffers {@code text} encoded with {@code charset}.
   *
   * @param text the text
   * @param charset the charset to encode {@code text} with
   * @throws IOException if the transport is closed or has failed
   */
  void write(String text, Charset charset) throws IOException;

  /**
   * Buffers {@code line} encoded as UTF-8, followed by CRLF.
   *
   * @param line the line, without its line end
   * @throws IOException if the transport is closed or has failed
   */
  void writeLine(String line) throws IOException;

  /**
   * Sends everything buffered and waits until the implementation has handed it to the
   * operating system (or, for the in-VM pipe, to the peer): once it returns, a {@link #close()}
   * loses none of it, and a failure to send it is thrown here, not at a later operation. This
   * holds in every mode, including continuations resumed on a transport's I/O thread, where the
   * wait ends in the same turn of the I/O thread's loop that writes the bytes.
   *
   * @throws IOException if the send times out or the transport fails
   */
  void flush() throws IOException;

  /**
   * Upgrades this plaintext transport to TLS in place and returns once the handshake is done
   * (STARTTLS: call it after the server's go-ahead, e.g. SMTP's {@code 220} reply to
   * {@code STARTTLS}). Anything written and not yet flushed is flushed first, in plaintext.
   * The handshake is one wait, bounded as {@link TlsSettings} says; the server's certificate and
   * host name are verified as the settings say, the host name being the one this transport
   * connected to unless {@link TlsSettings.Builder#serverName(String)} names it.
   *
   * <p>Bytes already received and not yet read when this is called are not fed to TLS: they
   * are plaintext that arrived past the upgrade point, which an honest server never sends and a
   * man in the middle does to inject commands, so the upgrade is refused. Every failure below
   * closes the transport.
   *
   * @param settings the TLS settings of the handshake
   * @throws StartTlsInjectionException if plaintext bytes are buffered past the upgrade point
   * @throws TlsHandshakeException if the handshake fails: untrusted, expired or wrong-host
   *     certificate, a peer that does not speak TLS, a close during the handshake
   * @throws TransportTimeoutException if the handshake takes too long
   * @throws IllegalStateException if this transport already speaks TLS, or cannot (the in-VM
   *     pipe has no host to verify)
   */
  void startTls(TlsSettings settings) throws IOException;

  /**
   * The negotiated TLS session (protocol, cipher suite, the server's certificates) once a
   * handshake has completed. For logging and pinning. Never waits.
   *
   * @return the negotiated session, or empty for plaintext
   */
  Optional<SSLSession> tlsSession();

  /**
   * This transport's timeouts.
   *
   * @return the timeouts
   */
  Timeout timeout();

  /**
   * Replaces this transport's timeouts. The session deadline is still measured from the start
   * of the connect.
   *
   * @param timeout the new timeouts
   */
  void timeout(Timeout timeout);

  /**
   * True until this transport is closed, by {@link #close()}, a timeout or a failure.
   *
   * @return true if this transport is open
   */
  boolean isOpen();

  /**
   * Closes the connection without flushing: anything written but not flushed is discarded.
   * Closing a closed transport does nothing.
   */
  @Override
  void close();
}
