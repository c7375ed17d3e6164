package io.weft.transport.spi;

/**
 * A transport that tells when it first heard from its peer: the first bytes received on its
 * connection. A runner that bounds how many connections are open but not yet heard from (a
 * connect window) frees a session's place in it then: a connection a server has sent on is one
 * it has accepted, so it no longer sits in the server's listen queue. Every Weft transport over a
 * socket implements it. For runners and tools, not protocol code.
 */
public interface ReportsArrival {
  /**
   * Runs {@code heard} once, when the first bytes from the peer arrive: at once, inline, if some
   * already have. Nothing else runs it (not a close, not a failure).
   *
   * @param heard what to run, once; it runs on the thread that took the bytes off the socket (a
   *     library's I/O thread, or the reader's own on a blocking socket), outside the transport's
   *     locks, so it must be quick and never block
   * @throws IllegalStateException if a watcher was already registered
   */
  void whenHeardFrom(Runnable heard);
}
