package io.weft.continuations.testing;

import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import java.io.IOException;
import java.nio.charset.Charset;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/**
 * The test transports' common part: they speak lines only ({@code readLine(int)},
 * {@code readLineStrict(int)} and {@code writeLine}, which each one writes with its own way of
 * waiting); every other read or write is unsupported, there is no TLS and no timeout, and the
 * transport stays open unless a subclass says otherwise.
 */
public abstract class LinesOnlyTransport implements Transport {
  @Override public String readLine(int limit, Charset charset) { throw new UnsupportedOperationException(); }
  @Override public String readLineStrict(int limit, Charset charset) { throw new UnsupportedOperationException(); }
  @Override public void readFully(byte[] dst, int offset, int length) { throw new UnsupportedOperationException(); }
  @Override public byte[] readBytes(int byteCount) { throw new UnsupportedOperationException(); }
  @Override public int read(byte[] dst, int offset, int length) { throw new UnsupportedOperationException(); }
  @Override public void write(byte[] src, int offset, int length) { throw new UnsupportedOperationException(); }
  @Override public void write(byte[] src) { throw new UnsupportedOperationException(); }
  @Override public void write(String text) { throw new UnsupportedOperationException(); }
  @Override public void write(String text, Charset charset) { throw new UnsupportedOperationException(); }

  @Override
  public abstract void writeLine(String line) throws IOException;

  @Override public void flush() {}
  @Override public void startTls(TlsSettings settings) { throw new IllegalStateException("no TLS here"); }
  @Override public Optional<SSLSession> tlsSession() { return Optional.empty(); }
  @Override public Timeout timeout() { return Timeout.NONE; }
  @Override public void timeout(Timeout timeout) {}
  @Override public boolean isOpen() { return true; }
  @Override public void close() {}
}
