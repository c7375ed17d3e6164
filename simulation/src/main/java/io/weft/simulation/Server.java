package io.weft.simulation;

import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import java.util.Arrays;
import java.util.Objects;

/**
 * A server inside a simulation: what listens at an address and how each accepted connection is
 * served. This is the simulation's acceptor: every connection it accepts yields a
 * {@link io.weft.transport.Transport}, and a session of the handler task runs over it, blocking
 * code scheduled and rewritten exactly like a client, with {@code run(transport, session)} called
 * once per connection. At most {@link #maxConnections} sessions serve at once; connections beyond
 * that wait established in the accept queue, up to {@link #backlog}; beyond that the SYN is
 * dropped and the client's TCP tries again (after 1 s, 2 s, 4 s, ...), so its connect ends in its
 * timeout if the queue stays full. Immutable; each {@code with*} returns a changed copy.
 *
 * <p>The handler class is loaded by name through the simulation's instrumenting class loader
 * (its package must be among the instrumented ones, as {@code io.weft.simulation.servers} is for
 * the servers that come with this module), and made with the given constructor arguments: pass
 * JDK types.
 */
public final class Server {
  private final Class<? extends SessionTask<?>> handler;
  private final Object[] args;
  private final int backlog;
  private final int maxConnections;
  private final Timeout timeout;

  private Server(Class<? extends SessionTask<?>> handler, Object[] args, int backlog, int maxConnections,
      Timeout timeout) {
    this.handler = handler;
    this.args = args;
    this.backlog = backlog;
    this.maxConnections = maxConnections;
    this.timeout = timeout;
  }

  /**
   * A server that runs a session of {@code handler} per connection: no limit on connections, a
   * backlog of 128, no timeout.
   *
   * @param handler the task each accepted connection runs
   * @param args the arguments of its constructor
   * @return the server
   */
  public static Server of(Class<? extends SessionTask<?>> handler, Object... args) {
    return new Server(Objects.requireNonNull(handler, "handler"), args.clone(), 128, Integer.MAX_VALUE, Timeout.NONE);
  }

  /**
   * This server with at most this many connections waiting in its accept queue.
   *
   * @param backlog at least 0
   * @return the changed server
   */
  public Server withBacklog(int backlog) {
    if (backlog < 0) {
      throw new IllegalArgumentException("backlog < 0: " + backlog);
    }
    return new Server(handler, args, backlog, maxConnections, timeout);
  }

  /**
   * This server serving at most this many connections at once.
   *
   * @param maxConnections at least 1
   * @return the changed server
   */
  public Server withMaxConnections(int maxConnections) {
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections < 1: " + maxConnections);
    }
    return new Server(handler, args, backlog, maxConnections, timeout);
  }

  /**
   * This server with these timeouts on each accepted transport; the session deadline starts at the
   * accept.
   *
   * @param timeout the timeouts
   * @return the changed server
   */
  public Server withTimeout(Timeout timeout) {
    return new Server(handler, args, backlog, maxConnections, Objects.requireNonNull(timeout, "timeout"));
  }

  Class<? extends SessionTask<?>> handler() {
    return handler;
  }

  Object[] args() {
    return args;
  }

  int backlog() {
    return backlog;
  }

  int maxConnections() {
    return maxConnections;
  }

  Timeout timeout() {
    return timeout;
  }

  @Override
  public String toString() {
    return "Server{" + handler.getName() + Arrays.toString(args) + ", backlog " + backlog
        + (maxConnections == Integer.MAX_VALUE ? "" : ", at most " + maxConnections) + "}";
  }
}
