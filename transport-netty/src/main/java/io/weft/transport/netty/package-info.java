/**
 * Weft's {@link io.weft.transport.Transport} over Netty 4.1 NIO channels:
 * {@link io.weft.transport.netty.NettyConnector} opens transports that block the calling thread
 * (SYNC, THREADS, virtual threads), {@link io.weft.transport.netty.SuspendingNettyConnector}
 * transports that suspend a continuation and are resumed on the event loop where their bytes
 * arrive. The same contract, fault vocabulary and TLS behaviour as the MINA transports.
 */
package io.weft.transport.netty;
