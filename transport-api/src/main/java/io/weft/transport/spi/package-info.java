/**
 * The connection core: what a transport implementation builds on, over any I/O library. A
 * transport keeps one {@link io.weft.transport.spi.ConnectionState} per connection (the bounded
 * inbound buffer, the outbound buffer, backpressure, wake-ups, TLS failures and the close), and
 * gives its user a {@link io.weft.transport.spi.ConnectionTransport}: the blocking one here, the
 * suspending one in {@code continuations-spi}. Timeouts turn into waits through
 * {@link io.weft.transport.spi.Deadlines}; {@link io.weft.transport.spi.WriteWatchdog} times out
 * the blocking writes the JDK cannot.
 *
 * <p>For transport authors, not for protocol code: a protocol knows only {@code io.weft.transport}.
 * Weft is 0.x, and this SPI changes with the transports it serves; it is left out of the
 * published API reference until its shape settles.
 */
package io.weft.transport.spi;
