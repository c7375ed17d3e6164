/**
 * The connection core: what a transport implementation builds on, over any I/O library (MINA,
 * Netty, a plain socket, a simulated network). A transport keeps one
 * {@link io.weft.transport.spi.ConnectionState} per connection (the bounded inbound buffer, the
 * outbound buffer, backpressure, wake-ups, TLS failures and the close), and gives its user a
 * {@link io.weft.transport.spi.ConnectionTransport}: the blocking one here, the suspending one in
 * {@code continuations-spi}. Timeouts turn into waits through
 * {@link io.weft.transport.spi.Deadlines}; {@link io.weft.transport.spi.WriteWatchdog} times out
 * the blocking writes the JDK cannot.
 *
 * <p>Beside these sit the pieces every transport shares so that all of them behave and fail
 * alike: {@link io.weft.transport.spi.InboundBuffer} (the non-blocking reads, and the TLS alert
 * watch on a plaintext stream), {@link io.weft.transport.spi.OutboundBuffer},
 * {@link io.weft.transport.spi.Tls} (engine set-up and the one vocabulary of handshake failures),
 * {@link io.weft.transport.spi.FailurePolicy} (which failures close a transport),
 * {@link io.weft.transport.spi.ConnectFailures}, {@link io.weft.transport.spi.ConnectorCore} (the
 * steps of a connect) and {@link io.weft.transport.spi.Ticker}, the one clock Weft's waits read.
 * {@link io.weft.transport.spi.ReplyTiming}, which every connection transport and the socket
 * transport implement (with {@link io.weft.transport.spi.ReplyStamps}), is for tools rather
 * than transports: a load driver reads from it when a request left and its reply's first byte came.
 * {@link io.weft.transport.spi.ReportsArrival} (with {@link io.weft.transport.spi.ArrivalNotice}),
 * implemented by the same transports, tells a runner when a connection first heard from its peer
 * (its connect window, see {@code SessionRunner.Builder#connectWindow}).
 *
 * <p>For transport authors, not for protocol code: a protocol knows only {@code io.weft.transport}
 * and never needs a type from here. Threads: each class says which of its methods an I/O thread
 * may call; a wait on one is refused ({@link io.weft.transport.spi.ConnectionState#checkMayBlock})
 * rather than left to deadlock. Stability: Weft is 0.x, and this SPI changes with the transports
 * it serves; a release may change it without a deprecation period.
 */
package io.weft.transport.spi;
