/**
 * The transport over a plain {@code java.net.Socket}: {@link io.weft.transport.socket.SocketConnector}
 * and its {@link io.weft.transport.socket.SocketTransport}, blocking on every wait, with TLS
 * through {@code SSLSocket}. It serves SYNC, THREADS and VIRTUAL_THREADS; continuation mode needs
 * a suspending connector (transport-mina or transport-netty). Enough on its own for a
 * synchronous client: it needs nothing but transport-api.
 */
package io.weft.transport.socket;
