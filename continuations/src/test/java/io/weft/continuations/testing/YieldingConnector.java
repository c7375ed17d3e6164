package io.weft.continuations.testing;

import io.weft.continuations.spi.Suspend;
import io.weft.continuations.spi.SuspendingConnector;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import io.weft.transport.spi.Deadlines;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.charset.Charset;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import javax.net.ssl.SSLSession;
import org.apache.commons.javaflow.api.continuable;

/**
 * For measuring: a transport whose every read suspends exactly once and is woken by a separate
 * waker thread, then returns the last line written. Its cost per exchange is Weft's
 * suspend + wake + resume, with no I/O.
 */
public final class YieldingConnector implements SuspendingConnector {
  private final LinkedBlockingQueue<Runnable> wakes = new LinkedBlockingQueue<>();
  private final Thread waker;

  public YieldingConnector() {
    waker = new Thread(() -> {
      try {
        for (;;) {
          wakes.take().run();
        }
      } catch (InterruptedException e) {
        // closed
      }
    }, "yield-waker");
    waker.setDaemon(true);
    waker.start();
  }

  @Override
  public Transport connect(SocketAddress remote, Timeout timeout) {
    return new YieldingTransport();
  }

  @Override
  public void close() {
    waker.interrupt();
  }

  final class YieldingTransport implements Transport {
    private String last;

    @Override
    @continuable
    public String readLine(int limit) throws IOException {
      Suspend.await(wakes::add, Deadlines.FOREVER);
      return last;
    }

    @Override
    @continuable
    public String readLineStrict(int limit) throws IOException {
      Suspend.await(wakes::add, Deadlines.FOREVER);
      return last;
    }

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
    public void writeLine(String line) {
      last = line;
    }

    @Override public void flush() {}
    @Override public void startTls(TlsSettings settings) { throw new IllegalStateException("no TLS here"); }
    @Override public Optional<SSLSession> tlsSession() { return Optional.empty(); }
    @Override public Timeout timeout() { return Timeout.NONE; }
    @Override public void timeout(Timeout timeout) {}
    @Override public boolean isOpen() { return true; }
    @Override public void close() {}
  }
}
