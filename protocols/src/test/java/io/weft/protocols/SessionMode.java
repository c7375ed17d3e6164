package io.weft.protocols;

import io.weft.continuations.ContinuationClassLoader;
import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.mina.SuspendingMinaConnector;
import com.sun.management.UnixOperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One of Weft's modes as the protocol tests use it: every client conversation of a test runs as
 * a {@link SessionTask} through {@link SessionRunner} in that mode, so one test class per
 * protocol, parameterized over the modes ({@link ModeCase}), covers every mode.
 *
 * <p>Task classes are plain named classes with a public constructor taking JDK types: in
 * {@code CONTINUATIONS} mode the runner loads them by name through its instrumenting class
 * loader, as a second copy of the task's package (with the protocol clients it uses). A task
 * therefore checks what it gets itself (JUnit assertions work there: JUnit comes from the parent
 * loader) and returns JDK types. Exceptions cross unchanged: those of the JDK, of the Transport
 * API and the clients' own ({@code RedisErrorException}, {@code SmtpReplyException}), which the
 * loader leaves to its parent ({@code CallerExceptionTypesTest}).
 *
 * <p>In {@code CONTINUATIONS} mode every run with the same packages loads its task through one
 * {@link ContinuationClassLoader}, shared by this mode and those made from it ({@link #tls},
 * {@link #instrumenting}): the loader scans and rewrites once per test class and mode, not once
 * per run (seconds each), and each run still goes through the runner's refusal check and a
 * runner of its own.
 *
 * <p>Lifecycle: one instance per test class; {@link #close()} after the last test closes the
 * connector.
 */
public final class SessionMode implements AutoCloseable {
  /** The protocol clients' shared plumbing, rewritten along with each task's package. */
  private static final String CLIENT_INTERNALS = "io.weft.protocols.internal";

  private final Mode mode;
  private final String name;
  private final Supplier<Connector> connectors;
  private final Function<TlsSettings, Connector> tlsConnectors;
  private final String unavailable;
  private final List<String> instrumented;
  /** The loaders by package list, shared with the modes made from this one. */
  private final Map<List<String>, ContinuationClassLoader> loaders;
  private Connector connector;

  private SessionMode(Mode mode, String name, Supplier<Connector> connectors,
      Function<TlsSettings, Connector> tlsConnectors, String unavailable, List<String> instrumented,
      Map<List<String>, ContinuationClassLoader> loaders) {
    this.mode = mode;
    this.name = name;
    this.connectors = connectors;
    this.tlsConnectors = tlsConnectors;
    this.unavailable = unavailable;
    this.instrumented = instrumented;
    this.loaders = loaders;
  }

  private SessionMode(Mode mode, String name, Supplier<Connector> connectors,
      Function<TlsSettings, Connector> tlsConnectors, String unavailable) {
    this(mode, name, connectors, tlsConnectors, unavailable, List.of(), new ConcurrentHashMap<>());
  }

  /**
   * The same mode over a connector of its own that speaks TLS from the start as {@code tls} says:
   * {@code SocketConnector(tls)}, or {@code SuspendingMinaConnector} built with it. Close it too.
   */
  public SessionMode tls(TlsSettings tls) {
    return new SessionMode(mode, name + "+TLS", () -> tlsConnectors.apply(tls), tlsConnectors, unavailable,
        instrumented, loaders);
  }

  /**
   * The same mode, also rewriting {@code packages} in continuation mode: the packages of the
   * protocol clients a task uses from another package.
   */
  public SessionMode instrumenting(String... packages) {
    return new SessionMode(mode, name, connectors, tlsConnectors, unavailable, List.of(packages), loaders);
  }

  /** Sessions one after another on the test thread, over {@code SocketTransport}. */
  public static SessionMode sync() {
    return new SessionMode(Mode.SYNC, "SYNC/socket", SocketConnector::new, SocketConnector::new, null);
  }

  /** A platform thread per session, over {@code SocketTransport}. */
  public static SessionMode threads() {
    return new SessionMode(Mode.THREADS, "THREADS/socket", SocketConnector::new, SocketConnector::new, null);
  }

  /**
   * A virtual thread per session, over {@code SocketTransport}; on a JDK before 21 the mode is
   * {@linkplain #available() unavailable} and its tests are skipped.
   */
  public static SessionMode virtualThreads() {
    int feature = Runtime.version().feature();
    return new SessionMode(Mode.VIRTUAL_THREADS, "VIRTUAL_THREADS/socket", SocketConnector::new,
        SocketConnector::new, feature >= 21 ? null : "VIRTUAL_THREADS needs JDK 21 or later; this is JDK " + feature);
  }

  /**
   * Continuations resumed by {@code workers} threads, over {@code SuspendingMinaTransport} (TCP),
   * whose waits suspend the session.
   */
  public static SessionMode continuations(int workers) {
    return new SessionMode(Mode.continuations(workers), "CONTINUATIONS(" + workers + ")/SuspendingMina",
        SuspendingMinaConnector::tcp, tls -> SuspendingMinaConnector.builder().tls(tls).tcp(), null);
  }

  /**
   * Continuations resumed by {@code workers} threads, over {@code SuspendingNettyTransport} (TCP).
   */
  public static SessionMode continuationsOverNetty(int workers) {
    return new SessionMode(Mode.continuations(workers), "CONTINUATIONS(" + workers + ")/SuspendingNetty",
        io.weft.transport.netty.SuspendingNettyConnector::tcp,
        tls -> io.weft.transport.netty.SuspendingNettyConnector.builder().tls(tls).tcp(), null);
  }

  /** The mode's name, for messages. */
  public String name() {
    return name;
  }

  /** The runner's mode. */
  public Mode mode() {
    return mode;
  }

  /** False when this JDK cannot run the mode; see {@link #unavailableReason()}. */
  public boolean available() {
    return unavailable == null;
  }

  /** Why the mode cannot run here, or null. */
  public String unavailableReason() {
    return unavailable;
  }

  /**
   * Runs one session of a new {@code taskClass(constructorArgs)} against {@code address} and
   * returns its result; what ended it otherwise is thrown as it was thrown.
   */
  public <T> T run(Class<? extends SessionTask<T>> taskClass, InetSocketAddress address, Timeout timeout,
      Object... constructorArgs) throws Exception {
    RunResult<T> result = runAll(taskClass, address, 1, timeout, constructorArgs);
    Outcome<T> outcome = result.outcome(0);
    switch (outcome.status()) {
      case SUCCEEDED:
        return outcome.value();
      case FAILED:
        Throwable failure = outcome.failure();
        if (failure instanceof Exception) {
          throw (Exception) failure;
        }
        if (failure instanceof Error) {
          throw (Error) failure;
        }
        throw new AssertionError(failure);
      default:
        throw new AssertionError(taskClass.getSimpleName() + " in " + name + ": " + outcome, outcome.failure());
    }
  }

  /**
   * Runs {@code sessions} sessions of a new {@code taskClass(constructorArgs)} against
   * {@code address}, each over its own transport, and returns their results in session order.
   *
   * @throws AssertionError if any session did not succeed, counting the failures by kind and
   *     carrying the first
   */
  public <T> List<T> runSessions(Class<? extends SessionTask<T>> taskClass, InetSocketAddress address,
      int sessions, Timeout timeout, Object... constructorArgs) throws Exception {
    long suspendsBefore = suspends();
    RunResult<T> result = runAll(taskClass, address, sessions, timeout, constructorArgs);
    long suspendsAfter = suspends();
    long suspends = suspendsBefore < 0 || suspendsAfter < 0 ? -1 : suspendsAfter - suspendsBefore;
    // A figure for the log, not an assertion: the machine is shared.
    System.out.println(taskClass.getSimpleName() + " in " + name + ": " + result
        + (suspends >= 0 ? ", " + suspends + " suspends" : ""));
    if (!result.allSucceeded()) {
      Map<String, Integer> kinds = new TreeMap<>();
      Throwable first = null;
      for (Outcome<T> o : result.failures()) {
        String kind = o.status() + (o.failure() == null ? "" : " " + o.failure().getClass().getName());
        kinds.merge(kind, 1, Integer::sum);
        if (first == null) {
          first = o.failure();
        }
      }
      throw new AssertionError(result.failures().size() + " of " + sessions + " sessions of "
          + taskClass.getSimpleName() + " did not succeed in " + name + ": " + kinds + "; the first: "
          + result.failures().get(0), first);
    }
    if (mode.kind() == Mode.Kind.CONTINUATIONS && sessions > 1 && suspends == 0) {
      // Every wait was already over when asked: the run proved nothing about continuations.
      throw new AssertionError(sessions + " sessions in " + name + " and not one suspended");
    }
    return new ArrayList<>(result.values());
  }

  /**
   * Runs {@code sessions} sessions of a new {@code taskClass(constructorArgs)} against
   * {@code address} through a runner given the mode, connector, address and timeout only (every
   * other setting its default), and returns the run's result as it is.
   */
  public <T> RunResult<T> runAll(Class<? extends SessionTask<T>> taskClass, InetSocketAddress address,
      int sessions, Timeout timeout, Object... constructorArgs) throws Exception {
    if (!available()) {
      throw new IllegalStateException(unavailable);
    }
    SessionRunner.Builder builder = SessionRunner.builder()
        .mode(mode)
        .connector(connector())
        .address(address)
        .timeout(timeout);
    if (mode.kind() == Mode.Kind.CONTINUATIONS) {
      List<String> packages = new ArrayList<>(List.of(taskClass.getPackageName(), CLIENT_INTERNALS));
      packages.addAll(instrumented);
      builder.classLoader(loaders.computeIfAbsent(List.copyOf(packages),
          p -> new ContinuationClassLoader(SessionMode.class.getClassLoader(), p)));
    }
    try (SessionRunner runner = builder.build()) {
      return runner.run(taskClass, sessions, constructorArgs);
    }
  }

  /**
   * Fails at once, saying what to raise, when this process cannot open {@code needed} more file
   * descriptors (plus a margin for the JVM and the servers' listeners): a run at scale would
   * otherwise fail session by session with "Too many open files".
   */
  public static void requireFileDescriptors(long needed) {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof UnixOperatingSystemMXBean) {
      UnixOperatingSystemMXBean unix = (UnixOperatingSystemMXBean) os;
      long free = unix.getMaxFileDescriptorCount() - unix.getOpenFileDescriptorCount();
      long margin = 256;
      if (free < needed + margin) {
        throw new AssertionError("this test needs " + (needed + margin) + " free file descriptors and has "
            + free + " (limit " + unix.getMaxFileDescriptorCount() + "): raise `ulimit -n`");
      }
    }
  }

  /** Waits that suspended so far on this mode's connector, or -1 if it does not count them. */
  private synchronized long suspends() {
    return connector instanceof SuspendingMinaConnector ? ((SuspendingMinaConnector) connector).suspends()
        : connector instanceof io.weft.transport.netty.SuspendingNettyConnector
        ? ((io.weft.transport.netty.SuspendingNettyConnector) connector).suspends()
        : connector == null && mode.kind() == Mode.Kind.CONTINUATIONS ? 0 : -1;
  }

  private synchronized Connector connector() {
    if (connector == null) {
      connector = connectors.get();
    }
    return connector;
  }

  @Override
  public synchronized void close() {
    if (connector != null) {
      connector.close();
      connector = null;
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
