package io.weft.continuations.internal.runtime;

import io.weft.transport.LineParser;
import io.weft.transport.LineParsing;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/**
 * What a task sees as its transport in {@code CONTINUATIONS} mode: the connector's transport
 * behind a {@link Guard} check on entry to every operation, so a suspend swallowed by a frame
 * that was not rewritten is caught at the next transport call, whatever the transport.
 *
 * <p>Like {@link SessionFrame}, the {@code ContinuationClassLoader} defines its own copy and
 * rewrites it: only there does the engine see {@code Transport}'s methods marked, so only there
 * are the calls to the delegate rewritten. Costs one extra frame on each suspend path; a transport
 * that makes the check itself ({@link io.weft.continuations.runtime.spi.SelfCheckingTransport},
 * and the MINA and Netty ones, {@link io.weft.continuations.spi.SuspendingConnectionTransport},
 * through {@link io.weft.continuations.spi.Suspend#checkEntry()}) is not wrapped.
 *
 * <p>It offers {@link LineParsing} over any transport: forwarded to a delegate that offers it,
 * made of the delegate's {@code readLineStrict} otherwise.
 */
public final class CheckedTransport implements Transport, LineParsing {
  private final Transport delegate;
  /** The delegate as a {@link LineParsing}, or null if it does not offer it. */
  private final LineParsing delegateParsing;

  public CheckedTransport(Transport delegate) {
    this.delegate = delegate;
    this.delegateParsing = delegate instanceof LineParsing ? (LineParsing) delegate : null;
  }

  @Override
  public String readLine(int limit) throws IOException {
    Guard.onEntry();
    return delegate.readLine(limit);
  }

  @Override
  public String readLine(int limit, Charset charset) throws IOException {
    Guard.onEntry();
    return delegate.readLine(limit, charset);
  }

  @Override
  public String readLineStrict(int limit) throws IOException {
    Guard.onEntry();
    return delegate.readLineStrict(limit);
  }

  @Override
  public String readLineStrict(int limit, Charset charset) throws IOException {
    Guard.onEntry();
    return delegate.readLineStrict(limit, charset);
  }

  /**
   * The delegate's {@code parseLine} if it offers {@link LineParsing}; otherwise its
   * {@code readLineStrict(limit, ISO_8859_1)} (one char per byte, so the bytes are the line's
   * exactly) and the parser on a copy of the bytes, in this rewritten frame, so that the read may
   * suspend. Either way the same line, limit, waits and exceptions; a parser's exception is not
   * the transport's failure here either.
   */
  @Override
  public <T> T parseLine(int limit, LineParser<T> parser) throws IOException {
    Guard.onEntry();
    if (delegateParsing != null) {
      return delegateParsing.parseLine(limit, parser);
    }
    Objects.requireNonNull(parser, "parser");
    byte[] bytes = delegate.readLineStrict(limit, StandardCharsets.ISO_8859_1).getBytes(StandardCharsets.ISO_8859_1);
    return parser.parse(bytes, 0, bytes.length);
  }

  @Override
  public void readFully(byte[] dst, int offset, int length) throws IOException {
    Guard.onEntry();
    delegate.readFully(dst, offset, length);
  }

  @Override
  public byte[] readBytes(int byteCount) throws IOException {
    Guard.onEntry();
    return delegate.readBytes(byteCount);
  }

  @Override
  public int read(byte[] dst, int offset, int length) throws IOException {
    Guard.onEntry();
    return delegate.read(dst, offset, length);
  }

  @Override
  public void write(byte[] src, int offset, int length) throws IOException {
    Guard.onEntry();
    delegate.write(src, offset, length);
  }

  @Override
  public void write(byte[] src) throws IOException {
    Guard.onEntry();
    delegate.write(src);
  }

  @Override
  public void write(String text) throws IOException {
    Guard.onEntry();
    delegate.write(text);
  }

  @Override
  public void write(String text, Charset charset) throws IOException {
    Guard.onEntry();
    delegate.write(text, charset);
  }

  @Override
  public void writeLine(String line) throws IOException {
    Guard.onEntry();
    delegate.writeLine(line);
  }

  @Override
  public void flush() throws IOException {
    Guard.onEntry();
    delegate.flush();
  }

  @Override
  public void startTls(TlsSettings settings) throws IOException {
    Guard.onEntry();
    delegate.startTls(settings);
  }

  @Override
  public Optional<SSLSession> tlsSession() {
    return delegate.tlsSession();
  }

  @Override
  public Timeout timeout() {
    return delegate.timeout();
  }

  @Override
  public void timeout(Timeout timeout) {
    delegate.timeout(timeout);
  }

  @Override
  public boolean isOpen() {
    return delegate.isOpen();
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
