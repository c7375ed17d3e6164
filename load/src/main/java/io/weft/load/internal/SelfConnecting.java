package io.weft.load.internal;

import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.spi.Clocked;
import io.weft.transport.spi.Ticker;
import java.net.SocketAddress;
import java.nio.charset.Charset;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/**
 * The connector weft-load gives its session runner: it opens nothing. Each virtual user connects
 * for itself, through the run's real connector, so that its first connect is paced, timed,
 * and retried like every reconnect; a refused connect then fails an iteration, not the user. It
 * returns at once and never waits, so it is no blocking connector even in continuation mode.
 *
 * <p>It answers the run's clock ({@link Clocked}), which the runner makes its run's: in
 * continuation mode the runtime's timer then times every suspension of the users (think time,
 * backoffs, pacing and window waits, the real connector's timeouts) on the clock the real
 * connector was built with, and a user's connect passes the runtime's check that its connector
 * reads the run's clock.
 */
final class SelfConnecting implements Connector, Clocked {
  private final Ticker clock;

  /** @param clock the run's clock, the very object its real connector was built with */
  SelfConnecting(Ticker clock) {
    this.clock = java.util.Objects.requireNonNull(clock, "clock");
  }

  @Override
  public Ticker ticker() {
    return clock;
  }

  @Override
  public Transport connect(SocketAddress remote, Timeout timeout) {
    return NotConnected.INSTANCE;
  }

  @Override
  public void close() {
    // Opens nothing, so there is nothing to close.
  }

  /** The runner's transport for a user that connects for itself: closed, and refusing every use. */
  private static final class NotConnected implements Transport {
    static final NotConnected INSTANCE = new NotConnected();

    private static IllegalStateException unused() {
      return new IllegalStateException("weft-load: the runner's transport is not connected; users connect for themselves");
    }

    @Override
    public String readLine(int limit) {
      throw unused();
    }

    @Override
    public String readLine(int limit, Charset charset) {
      throw unused();
    }

    @Override
    public String readLineStrict(int limit) {
      throw unused();
    }

    @Override
    public String readLineStrict(int limit, Charset charset) {
      throw unused();
    }

    @Override
    public void readFully(byte[] dst, int offset, int length) {
      throw unused();
    }

    @Override
    public byte[] readBytes(int byteCount) {
      throw unused();
    }

    @Override
    public int read(byte[] dst, int offset, int length) {
      throw unused();
    }

    @Override
    public void write(byte[] src, int offset, int length) {
      throw unused();
    }

    @Override
    public void write(byte[] src) {
      throw unused();
    }

    @Override
    public void write(String text) {
      throw unused();
    }

    @Override
    public void write(String text, Charset charset) {
      throw unused();
    }

    @Override
    public void writeLine(String line) {
      throw unused();
    }

    @Override
    public void flush() {
      throw unused();
    }

    @Override
    public void startTls(io.weft.transport.TlsSettings settings) {
      throw unused();
    }

    @Override
    public Optional<SSLSession> tlsSession() {
      return Optional.empty();
    }

    @Override
    public Timeout timeout() {
      return Timeout.NONE;
    }

    @Override
    public void timeout(Timeout timeout) {
      throw unused();
    }

    @Override
    public boolean isOpen() {
      return false;
    }

    @Override
    public void close() {
      // Never open.
    }
  }
}
