package io.weft.transport.spi;

/**
 * A transport that tells when its connection is closed: its socket closed, so that the peer has
 * been told (a TCP connection's FIN sent), not merely that {@code close()} was called. An I/O
 * library may close a socket after {@code close()} returns, on its own I/O thread (MINA closes a
 * session in its processor's next turn, Netty a channel closed off its event loop in the loop's
 * next task); a runner that bounds how many sessions are in flight frees a session's place only
 * once this reports, so that the next session's connect cannot reach a server that counts
 * connections before this one's close. Every Weft transport over a socket implements it.
 */
public interface ReportsClose {
  /**
   * Runs {@code closed} once this transport's connection is closed, whoever closed it (its
   * owner, the peer, a failure, its connector): at once, inline, if it already is. It also runs
   * when the connector can no longer close the connection itself (one of its threads died), as
   * such a connector opens no new one. At most one watcher per transport.
   *
   * @param closed what to run, once; it runs on the library's I/O thread or on the thread that
   *     closed the connection, so it must be quick and never block
   * @throws IllegalStateException if a watcher was already registered
   */
  void whenClosed(Runnable closed);
}
