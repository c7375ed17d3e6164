package io.weft.protocols;

import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * Where the protocol tests get their transports, so that one test class per protocol runs in
 * every mode through a small subclass per mode (as the transport contract suite does per
 * transport).
 *
 * <p>Two kinds of test use it:
 * <ul>
 *   <li>single-session tests call {@link #connect} and drive the client on the test thread;
 *   <li>tests at scale hand {@link #runSessions} the <em>class</em> of a {@link SessionTask}: a
 *       plain named class with a public no-argument constructor, so that a mode that rewrites
 *       bytecode (continuations) can load it by name through its instrumenting class loader.
 * </ul>
 *
 * <p>Lifecycle: one instance per test class; {@link #close()} after the last test releases
 * whatever the mode holds (connectors, threads).
 */
public abstract class TransportMode implements AutoCloseable {

  /** The mode's name, for messages. */
  public abstract String name();

  /** Opens a transport to {@code address}, for a session driven by the calling thread. */
  public abstract Transport connect(InetSocketAddress address, Timeout timeout) throws Exception;

  /**
   * Runs {@code sessions} sessions of a new {@code taskClass} instance against
   * {@code address}, each over its own transport, as this mode runs sessions, and returns
   * each session's result in session order.
   *
   * @throws AssertionError if any session failed, naming how many and carrying the first
   */
  public abstract <T> List<T> runSessions(Class<? extends SessionTask<T>> taskClass, InetSocketAddress address,
      int sessions, Timeout timeout) throws Exception;

  @Override
  public abstract void close();

  @Override
  public String toString() {
    return name();
  }
}
