package io.weft.perf.micro;

import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import java.net.SocketAddress;
import java.nio.charset.Charset;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/**
 * For microbenchmarks of the scheduler alone: a connector whose connect returns at once with a
 * transport that opens no socket and refuses every read and write. A session over it waits only
 * through {@code Suspend.await} with registrations of its own, so what it measures is Weft's
 * suspend + resume and nothing of I/O.
 *
 * <p>Its connect never waits, so it is not a {@code SuspendingConnector}: build the runner with
 * {@code allowBlockingConnector(true)}.
 */
public final class NoTransportConnector implements Connector {

  @Override
  public Transport connect(SocketAddress remote, Timeout timeout) {
    return new NoTransport(timeout);
  }

  @Override
  public void close() {
  }

  private static final class NoTransport implements Transport {
    private volatile Timeout timeout;
    private volatile boolean open = true;

    NoTransport(Timeout timeout) {
      this.timeout = timeout;
    }

    private static UnsupportedOperationException noIo() {
      return new UnsupportedOperationException("NoTransportConnector's transport carries no data");
    }

    @Override public String readLine(int limit) { throw noIo(); }
    @Override public String readLine(int limit, Charset charset) { throw noIo(); }
    @Override public String readLineStrict(int limit) { throw noIo(); }
    @Override public String readLineStrict(int limit, Charset charset) { throw noIo(); }
    @Override public void readFully(byte[] dst, int offset, int length) { throw noIo(); }
    @Override public byte[] readBytes(int byteCount) { throw noIo(); }
    @Override public int read(byte[] dst, int offset, int length) { throw noIo(); }
    @Override public void write(byte[] src, int offset, int length) { throw noIo(); }
    @Override public void write(byte[] src) { throw noIo(); }
    @Override public void write(String text) { throw noIo(); }
    @Override public void write(String text, Charset charset) { throw noIo(); }
    @Override public void writeLine(String line) { throw noIo(); }
    @Override public void flush() { }

    @Override
    public void startTls(TlsSettings settings) {
      throw new IllegalStateException("a transport with no peer has no TLS");
    }

    @Override
    public Optional<SSLSession> tlsSession() {
      return Optional.empty();
    }

    @Override
    public Timeout timeout() {
      return timeout;
    }

    @Override
    public void timeout(Timeout timeout) {
      this.timeout = timeout;
    }

    @Override
    public boolean isOpen() {
      return open;
    }

    @Override
    public void close() {
      open = false;
    }
  }
}
