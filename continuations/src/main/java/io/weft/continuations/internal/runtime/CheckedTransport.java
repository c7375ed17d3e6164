package io.weft.continuations.internal.runtime;

import io.weft.transport.LineParser;
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
 */
public final class CheckedTransport implements Transport {
  private final Transport delegate;
  private final boolean delegateParses;

  public CheckedTransport(Transport delegate) {
    this.delegate = delegate;
    this.delegateParses = Guard.parsesLinesItself(delegate);
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
   * The delegate's own {@code parseLine} if its class has one; otherwise {@code Transport}'s
   * default's steps, here: that default is not rewritten, so a delegate whose reads suspend (a
   * rewritten one of the task's) would have its suspend swallowed in it.
   */
  @Override
  public <T> T parseLine(int limit, LineParser<T> parser) throws IOException {
    Guard.onEntry();
    if (delegateParses) {
      return delegate.parseLine(limit, parser);
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
