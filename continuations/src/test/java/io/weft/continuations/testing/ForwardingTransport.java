package io.weft.continuations.testing;

import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import java.io.IOException;
import java.nio.charset.Charset;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import javax.net.ssl.SSLSession;

/**
 * A transport that hands every call to a real one (a loopback socket's): the tests' transports
 * whose close misbehaves on purpose override {@link #close()} and keep the rest.
 */
public abstract class ForwardingTransport implements Transport {
  /** The real transport. */
  protected final Transport socket;

  protected ForwardingTransport(Transport socket) {
    this.socket = socket;
  }

  @Override public String readLine(int limit) throws IOException { return socket.readLine(limit); }
  @Override public String readLine(int limit, Charset charset) throws IOException {
    return socket.readLine(limit, charset);
  }
  @Override public String readLineStrict(int limit) throws IOException { return socket.readLineStrict(limit); }
  @Override public String readLineStrict(int limit, Charset charset) throws IOException {
    return socket.readLineStrict(limit, charset);
  }
  @Override public void readFully(byte[] dst, int offset, int length) throws IOException {
    socket.readFully(dst, offset, length);
  }
  @Override public byte[] readBytes(int byteCount) throws IOException { return socket.readBytes(byteCount); }
  @Override public int read(byte[] dst, int offset, int length) throws IOException {
    return socket.read(dst, offset, length);
  }
  @Override public void write(byte[] src, int offset, int length) throws IOException {
    socket.write(src, offset, length);
  }
  @Override public void write(byte[] src) throws IOException { socket.write(src); }
  @Override public void write(String text) throws IOException { socket.write(text); }
  @Override public void write(String text, Charset charset) throws IOException { socket.write(text, charset); }
  @Override public void writeLine(String line) throws IOException { socket.writeLine(line); }
  @Override public void flush() throws IOException { socket.flush(); }
  @Override public void startTls(TlsSettings settings) throws IOException { socket.startTls(settings); }
  @Override public Optional<SSLSession> tlsSession() { return socket.tlsSession(); }
  @Override public Timeout timeout() { return socket.timeout(); }
  @Override public void timeout(Timeout timeout) { socket.timeout(timeout); }
  @Override public boolean isOpen() { return socket.isOpen(); }
  @Override public void close() { socket.close(); }

  /**
   * Waits for {@code latch} through interrupts (a cancel interrupts session threads: a close that
   * blocks does not mind), and sets the interrupt status again if one came.
   */
  public static void awaitUninterruptibly(CountDownLatch latch) {
    boolean interrupted = false;
    for (;;) {
      try {
        latch.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
