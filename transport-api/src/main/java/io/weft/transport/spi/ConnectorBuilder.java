package io.weft.transport.spi;

import io.weft.transport.TlsSettings;
import java.util.Objects;

/**
 * The options every connector over an I/O library takes: TLS, the inbound buffer's limit and the
 * number of I/O threads. A connector's own builder extends it, adds what only its library has and
 * the methods that build. Not thread-safe: a builder is filled in by one thread, then built.
 *
 * @param <B> the connector's own builder type, returned by every option for chaining
 */
public abstract class ConnectorBuilder<B extends ConnectorBuilder<B>> {
  private int inboundLimit = InboundState.DEFAULT_INBOUND_LIMIT;
  private int ioThreads;
  private TlsSettings tls;
  private Ticker ticker = Ticker.system();

  /** A builder with the defaults: plaintext, 64 KiB inbound, the library's thread count. */
  protected ConnectorBuilder() {}

  /**
   * Every connect does a TLS handshake as {@code tls} says before it returns (implicit TLS).
   *
   * @param tls the TLS settings of every connect
   * @return this builder
   */
  public final B tls(TlsSettings tls) {
    this.tls = Objects.requireNonNull(tls, "tls");
    return self();
  }

  /**
   * The clock of the built connector's connects' and transports' timeouts and deadlines (not
   * its close waits, nor a spin before suspending, which are real time), and, in a run of the {@code continuations} module's runner over
   * it, that run's wait timer, connect pacing, connect window and {@code SessionSemaphore} waits
   * (the run's one clock; see {@link Ticker} for what reads it in each mode). Default
   * {@link Ticker#system()}; a test injects one it steps by hand.
   *
   * @param ticker the clock
   * @return this builder
   */
  public final B ticker(Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    return self();
  }

  /**
   * Bytes a connection may buffer unread before reading from the peer is suspended (resumed when
   * the reader has drained it below half). Default 64 KiB.
   *
   * @param bytes the limit in bytes, at least 2
   * @return this builder
   * @throws IllegalArgumentException if {@code bytes < 2}
   */
  public final B inboundBufferLimit(int bytes) {
    if (bytes < 2) {
      throw new IllegalArgumentException("bytes < 2: " + bytes);
    }
    this.inboundLimit = bytes;
    return self();
  }

  /**
   * Sets the number of I/O threads; a connector's builder exposes it under its library's name
   * for them (MINA's processors, Netty's event loops).
   *
   * @param count the number of I/O threads; 0 for the connector's default
   * @return this builder
   * @throws IllegalArgumentException if {@code count < 0}
   */
  protected final B ioThreads(int count) {
    if (count < 0) {
      throw new IllegalArgumentException("count < 0: " + count);
    }
    this.ioThreads = count;
    return self();
  }

  /**
   * The TLS settings of every connect.
   *
   * @return the settings, or null for plaintext
   */
  protected final TlsSettings tlsSettings() {
    return tls;
  }

  /**
   * The clock set by {@link #ticker(Ticker)}.
   *
   * @return the clock, {@link Ticker#system()} unless one was set
   */
  protected final Ticker tickerSetting() {
    return ticker;
  }

  /**
   * The inbound buffer's limit.
   *
   * @return the limit in bytes
   */
  protected final int inboundLimitBytes() {
    return inboundLimit;
  }

  /**
   * The I/O thread count asked for, or {@code orElse} if none was.
   *
   * @param orElse the connector's default
   * @return the number of I/O threads to run
   */
  protected final int ioThreadsOr(int orElse) {
    return ioThreads > 0 ? ioThreads : orElse;
  }

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }
}
