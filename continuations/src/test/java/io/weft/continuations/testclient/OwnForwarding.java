package io.weft.continuations.testclient;

import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import java.io.IOException;
import java.nio.charset.Charset;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/**
 * A task's own transport that forwards every {@code Transport} method to another, as a user's
 * logging or metrics wrapper does, and nothing more: it offers no {@code LineParsing}. (Not the
 * tests' {@code testing.ForwardingTransport}: that package is not rewritten, and this one must be,
 * as a user's is.)
 */
class OwnForwarding implements Transport {
  final Transport to;

  OwnForwarding(Transport to) {
    this.to = to;
  }

  @Override public String readLine(int limit) throws IOException { return to.readLine(limit); }
  @Override public String readLine(int limit, Charset charset) throws IOException { return to.readLine(limit, charset); }
  @Override public String readLineStrict(int limit) throws IOException { return to.readLineStrict(limit); }
  @Override public String readLineStrict(int limit, Charset charset) throws IOException {
    return to.readLineStrict(limit, charset);
  }
  @Override public void readFully(byte[] dst, int offset, int length) throws IOException { to.readFully(dst, offset, length); }
  @Override public byte[] readBytes(int byteCount) throws IOException { return to.readBytes(byteCount); }
  @Override public int read(byte[] dst, int offset, int length) throws IOException { return to.read(dst, offset, length); }
  @Override public void write(byte[] src, int offset, int length) throws IOException { to.write(src, offset, length); }
  @Override public void write(byte[] src) throws IOException { to.write(src); }
  @Override public void write(String text) throws IOException { to.write(text); }
  @Override public void write(String text, Charset charset) throws IOException { to.write(text, charset); }
  @Override public void writeLine(String line) throws IOException { to.writeLine(line); }
  @Override public void flush() throws IOException { to.flush(); }
  @Override public void startTls(TlsSettings settings) throws IOException { to.startTls(settings); }
  @Override public Optional<SSLSession> tlsSession() { return to.tlsSession(); }
  @Override public Timeout timeout() { return to.timeout(); }
  @Override public void timeout(Timeout timeout) { to.timeout(timeout); }
  @Override public boolean isOpen() { return to.isOpen(); }
  @Override public void close() { to.close(); }
}
