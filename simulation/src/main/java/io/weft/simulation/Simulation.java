package io.weft.simulation;

import io.weft.continuations.ContinuationClassLoader;
import io.weft.continuations.runtime.spi.DrivenSession;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A deterministic simulation: unchanged blocking clients and servers, each session a continuation
 * on the calling thread, over a simulated network, in virtual time. Everything that varies (which
 * ready session runs next, each segment's latency, each injected fault) is drawn from one random
 * source seeded with {@link Builder#seed}; nothing reads the wall clock or another thread, so the
 * same seed gives the same run, event for event, and the SHA-256 of its event log says so.
 *
 * <pre>{@code
 * InetSocketAddress server = InetSocketAddress.createUnresolved("server", 7);
 * Simulation sim = Simulation.builder()
 *     .seed(42)
 *     .instrument("com.example.client", "io.weft.simulation.servers")
 *     .link(Link.of(Latency.uniform(20, 80, MILLISECONDS)).withResets(0.001))
 *     .partition("client", "server", 10, 20, SECONDS)
 *     .server(server, Server.of(EchoServer.class))
 *     .timeout(Timeout.of(30, SECONDS))
 *     .build();
 * SimulationResult<String> result = sim.run(MyClientTask.class, 10_000, server);
 * System.out.println(result.summary());
 * }</pre>
 *
 * <p>Each run makes a new world: the same simulation run twice gives the same result twice.
 * Client sessions run on the hosts named by {@link Builder#clientHosts} (round robin) and connect
 * to the address given to {@link #run}; a server's sessions run on its address's host. Addresses
 * are unresolved {@link InetSocketAddress}es whose host names a simulated host.
 *
 * <p>A run ends when every client session has ended; server sessions still running are then
 * cancelled. If nothing more can happen while clients still wait (no timeout, no segment in
 * flight) or virtual time passes {@link Builder#virtualTimeLimit}, the waiting clients are
 * cancelled and the run says so.
 *
 * <p>The system properties {@value #SEED_PROPERTY} and {@value #LOG_PROPERTY} override the seed
 * and keep the log, so that a failing test replays with {@code -Dweft.simulation.seed=S
 * -Dweft.simulation.log=true} and prints the events around its failure.
 */
public final class Simulation {
  /** System property that overrides the builder's seed: for replaying a failed run. */
  public static final String SEED_PROPERTY = "weft.simulation.seed";
  /** System property that keeps the event log ({@code true}): for replaying a failed run. */
  public static final String LOG_PROPERTY = "weft.simulation.log";

  private final long seed;
  private final Timeout timeout;
  private final Link defaultLink;
  private final Map<String, Link> links;
  private final List<Object[]> partitions;
  private final List<Object[]> observers;
  private final Map<InetSocketAddress, Server> servers;
  private final List<String> clientHosts;
  private final long startSpreadNanos;
  private final boolean shuffle;
  private final boolean keepLog;
  private final long virtualLimitNanos;
  private final String replayCommand;
  private final Tasks tasks;

  private Simulation(Builder b) {
    this.seed = b.seed;
    this.timeout = b.timeout;
    this.defaultLink = b.link;
    this.links = new HashMap<>(b.links);
    this.partitions = new ArrayList<>(b.partitions);
    this.observers = new ArrayList<>(b.observers);
    this.servers = new LinkedHashMap<>(b.servers);
    this.clientHosts = List.copyOf(b.clientHosts);
    this.startSpreadNanos = b.startSpreadNanos;
    this.shuffle = b.shuffle;
    this.keepLog = b.keepLog;
    this.virtualLimitNanos = b.virtualLimitNanos;
    this.replayCommand = b.replayCommand != null ? b.replayCommand
        : "rerun with -D" + SEED_PROPERTY + "=" + seed + " -D" + LOG_PROPERTY + "=true";
    this.tasks = new Tasks(new ContinuationClassLoader("weft-simulation", b.parent, b.packages, Redirects.redirects()));
  }

  /**
   * Starts the configuration of a simulation.
   *
   * @return a new builder: seed 0, perfect links, no servers, one client host "client"
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The seed every run of this simulation starts from.
   *
   * @return the seed
   */
  public long seed() {
    return seed;
  }

  /**
   * A connector that connects from simulated host {@code host} in whichever run of this
   * simulation is in progress on the calling thread: for a task that opens connections of its
   * own (a client that reconnects after a failure), passed to its constructor.
   *
   * @param host the simulated host to connect from
   * @return the connector; it works only inside a run
   */
  public io.weft.transport.Connector connector(String host) {
    return new HostConnector(host);
  }

  /**
   * Runs {@code sessions} client sessions of a new {@code taskClass(args)}, each connecting to
   * {@code address}, and returns when all have ended.
   *
   * @param <T> what each session's task returns
   * @param taskClass the client task; its package must be instrumented
   * @param sessions how many client sessions, at least 0
   * @param address where each connects: an unresolved {@link InetSocketAddress} of a simulated host
   * @param args the arguments of the task's constructor (JDK types)
   * @return the outcome of every client session and the run's summary
   * @throws io.weft.continuations.NotInstrumentableException before anything runs, if a task or
   *     handler can reach code that cannot suspend
   * @throws IllegalArgumentException if a task cannot be made with its arguments
   * @throws BlockedSessionError if a session blocked the simulation's thread
   */
  public <T> SimulationResult<T> run(Class<? extends SessionTask<T>> taskClass, int sessions, SocketAddress address,
      Object... args) {
    return run(taskClass, sessions, List.of(Objects.requireNonNull(address, "address")), args);
  }

  /**
   * As {@link #run(Class, int, SocketAddress, Object...)}, session i connecting to address i
   * modulo their number.
   *
   * @param <T> what each session's task returns
   * @param taskClass the client task; its package must be instrumented
   * @param sessions how many client sessions, at least 0
   * @param addresses where they connect, round robin
   * @param args the arguments of the task's constructor (JDK types)
   * @return the outcome of every client session and the run's summary
   */
  public <T> SimulationResult<T> run(Class<? extends SessionTask<T>> taskClass, int sessions,
      List<? extends SocketAddress> addresses, Object... args) {
    Objects.requireNonNull(taskClass, "taskClass");
    if (addresses.isEmpty()) {
      throw new IllegalArgumentException("no addresses");
    }
    if (sessions < 0) {
      throw new IllegalArgumentException("sessions < 0: " + sessions);
    }
    long wallStart = System.nanoTime();
    World world = new World(seed, shuffle, new EventLog(keepLog), tasks.loader());
    Net net = new Net(world, defaultLink, links);
    world.net = net;
    world.enter();
    try (BlockWatch watch = new BlockWatch(world)) {
      return runIn(world, net, taskClass, sessions, List.copyOf(addresses), args, wallStart);
    } finally {
      world.log.abandon(); // a run that failed leaves no hashing thread behind; after a result, nothing to do
      world.leave();
    }
  }

  private <T> SimulationResult<T> runIn(World world, Net net, Class<? extends SessionTask<T>> taskClass, int sessions,
      List<SocketAddress> addresses, Object[] args, long wallStart) {
    for (Object[] p : partitions) {
      net.partition((String) p[0], (String) p[1], (Long) p[2], (Long) p[3]);
    }
    for (Object[] o : observers) {
      Runnable action = (Runnable) o[1];
      world.at((Long) o[0], new World.Event() {
        @Override
        void fire() {
          action.run();
        }
      });
    }
    AcceptedConnector accepted = new AcceptedConnector();
    for (Map.Entry<InetSocketAddress, Server> e : servers.entrySet()) {
      Server server = e.getValue();
      SessionTask<?> handler = tasks.newTask(server.handler(), server.args());
      Listener[] listener = new Listener[1];
      listener[0] = new Listener(e.getKey(), server, end -> serve(world, net, listener[0], handler, accepted, end));
      net.listen(listener[0]);
    }
    SessionTask<?> task = tasks.newTask(taskClass, args);
    SimConnector[] connectors = new SimConnector[clientHosts.size()];
    for (int i = 0; i < connectors.length; i++) {
      connectors[i] = world.connector(clientHosts.get(i));
    }
    // The clients' indexes are taken now; their start times are drawn in index order, as the
    // indexes' order of stamps and draws has always been, and then each client is made in the
    // order they start, so that a session's objects lie in memory in the order the run touches
    // them (see World's slots).
    int first = world.reserve(sessions);
    if (startSpreadNanos > 0L) {
      Start[] starts = new Start[sessions];
      for (int i = 0; i < sessions; i++) {
        starts[i] = (Start) world.stamp(world.random.nextLong(startSpreadNanos), new Start(world, first + i));
      }
      java.util.Arrays.sort(starts); // the order they start in: by time, then by index
      for (Start start : starts) {
        start.slot = client(world, start.index, first, connectors, addresses, task);
      }
      world.atAll(starts);
    } else {
      for (int i = 0; i < sessions; i++) {
        world.start(client(world, first + i, first, connectors, addresses, task));
        world.keepUpWithLog();
      }
    }
    boolean finished = world.run(() -> world.clientsEnded() == sessions, virtualLimitNanos);
    int stuck = sessions - world.clientsEnded();
    List<World.Slot> clients = new ArrayList<>(sessions);
    for (int i = 0; i < sessions; i++) {
      clients.add(world.slot(first + i));
    }
    if (!finished) {
      for (World.Slot slot : clients) {
        world.cancel(slot);
      }
      world.runReady();
    }
    long virtual = world.now();
    // Servers still serving (a client left without closing, or a server that never ends) are
    // cancelled, so that no continuation outlives the run.
    world.endAll();
    world.closeConnectors();
    List<SessionOutcome<T>> outcomes = SimulationResult.outcomes(clients);
    long[] conns = new long[clients.size()];
    for (int i = 0; i < conns.length; i++) {
      conns[i] = clients.get(i).conn;
    }
    world.log.sha256(); // the digest's last buffers are part of the run's wall time
    return new SimulationResult<>(seed, outcomes, conns, stuck, world.log, virtual, System.nanoTime() - wallStart,
        replayCommand);
  }

  /** Makes client session {@code index}: the host and address of its place among the run's clients. */
  private World.Slot client(World world, int index, int first, SimConnector[] connectors,
      List<SocketAddress> addresses, SessionTask<?> task) {
    int i = index - first;
    DrivenSession fiber = world.scheduler.session(index, connectors[i % connectors.length],
        addresses.get(i % addresses.size()), timeout, task);
    return world.add(fiber, true);
  }

  /** A client's start, drawn for its index; its slot is made once every start is drawn. */
  private static final class Start extends World.Event {
    private final World world;
    final int index;
    World.Slot slot;

    Start(World world, int index) {
      this.world = world;
      this.index = index;
    }

    @Override
    void fire() {
      World.Slot s = slot;
      slot = null;
      world.start(s);
    }
  }

  private void serve(World world, Net net, Listener listener, SessionTask<?> handler,
      AcceptedConnector accepted, Endpoint end) {
    SimTransport transport = new SimTransport(world, net, end, listener.address, listener.server.timeout(),
        world.now(), null);
    DrivenSession fiber = world.scheduler.session(world.nextIndex(), accepted,
        new AcceptedConnector.Accepted(transport), listener.server.timeout(), handler);
    World.Slot slot = world.add(fiber, false);
    slot.endpoint = end;
    slot.conn = end.conn;
    slot.servedBy = listener;
    world.log.add(world.now(), EventLog.ACCEPTED, end.conn, fiber.index(), 0);
    world.start(slot);
  }

  /** Configures a {@link Simulation}. */
  public static final class Builder {
    private long seed;
    private Timeout timeout = Timeout.NONE;
    private Link link = Link.PERFECT;
    private final Map<String, Link> links = new HashMap<>();
    private final List<Object[]> partitions = new ArrayList<>();
    private final List<Object[]> observers = new ArrayList<>();
    private final Map<InetSocketAddress, Server> servers = new LinkedHashMap<>();
    private final List<String> packages = new ArrayList<>();
    private List<String> clientHosts = List.of("client");
    private long startSpreadNanos;
    private boolean shuffle = true;
    private boolean keepLog;
    private long virtualLimitNanos = TimeUnit.HOURS.toNanos(24);
    private String replayCommand;
    private ClassLoader parent = Simulation.class.getClassLoader();

    private Builder() {}

    /**
     * The seed of the run's one random source; overridden by the system property
     * {@value Simulation#SEED_PROPERTY}.
     *
     * @param seed any value
     * @return this builder
     */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Packages whose classes (and subpackages') are rewritten to suspend: the client task's, and
     * the servers' ({@code io.weft.simulation.servers} for the ones that come with this module).
     *
     * @param packages package names such as {@code com.example.client}
     * @return this builder
     */
    public Builder instrument(String... packages) {
      this.packages.addAll(List.of(packages));
      return this;
    }

    /**
     * Where task classes are read from; defaults to the loader of this class.
     *
     * @param parent the class loader that task classes are read from
     * @return this builder
     */
    public Builder parentClassLoader(ClassLoader parent) {
      this.parent = Objects.requireNonNull(parent, "parent");
      return this;
    }

    /**
     * The client sessions' timeouts, on the virtual clock.
     *
     * @param timeout operation timeout and session deadline
     * @return this builder
     */
    public Builder timeout(Timeout timeout) {
      this.timeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * The link between every two hosts that have no link of their own.
     *
     * @param link the link
     * @return this builder
     */
    public Builder link(Link link) {
      this.link = Objects.requireNonNull(link, "link");
      return this;
    }

    /**
     * The link between two hosts, both ways.
     *
     * @param one a host
     * @param other another host
     * @param link the link between them
     * @return this builder
     */
    public Builder link(String one, String other, Link link) {
      links.put(Net.pairKey(one, other), Objects.requireNonNull(link, "link"));
      return this;
    }

    /**
     * Cuts the two hosts apart from virtual time {@code at} for {@code duration}: segments sent
     * meanwhile are sent again as it heals (TCP's retransmission); connects and reads wait, up to
     * their timeouts.
     *
     * @param one a host
     * @param other another host
     * @param at when the partition starts, from the run's start
     * @param duration how long it lasts, more than 0
     * @param unit the unit of both
     * @return this builder
     */
    public Builder partition(String one, String other, long at, long duration, TimeUnit unit) {
      if (duration <= 0L) {
        throw new IllegalArgumentException("duration <= 0: " + duration);
      }
      partitions.add(new Object[] {one, other, unit.toNanos(at), unit.toNanos(duration)});
      return this;
    }

    /**
     * Cuts the two hosts apart from virtual time {@code at} for good: a black hole, where every
     * segment vanishes and every wait ends in its timeout.
     *
     * @param one a host
     * @param other another host
     * @param at when it starts, from the run's start
     * @param unit its unit
     * @return this builder
     */
    public Builder blackHole(String one, String other, long at, TimeUnit unit) {
      partitions.add(new Object[] {one, other, unit.toNanos(at), Long.MAX_VALUE});
      return this;
    }

    /**
     * Runs {@code action} on the simulation's thread at virtual time {@code at}, between two
     * events, while every session is suspended: to look at a run from outside (its heap, a
     * server's state). The action must not block, and should not change what the sessions see.
     *
     * @param at when, from the run's start
     * @param unit its unit
     * @param action what to run
     * @return this builder
     */
    public Builder observe(long at, TimeUnit unit, Runnable action) {
      observers.add(new Object[] {unit.toNanos(at), Objects.requireNonNull(action, "action")});
      return this;
    }

    /**
     * A server listening at {@code address}.
     *
     * @param address an unresolved address: its host names the simulated host the server runs on
     * @param server what serves each connection
     * @return this builder
     */
    public Builder server(SocketAddress address, Server server) {
      if (!(address instanceof InetSocketAddress)) {
        throw new IllegalArgumentException("a simulated server listens at an InetSocketAddress, not " + address);
      }
      if (servers.putIfAbsent((InetSocketAddress) address, Objects.requireNonNull(server, "server")) != null) {
        throw new IllegalArgumentException("two servers at " + address);
      }
      return this;
    }

    /**
     * The hosts the client sessions run on, session i on host i modulo their number.
     *
     * @param hosts one or more host names
     * @return this builder
     */
    public Builder clientHosts(String... hosts) {
      if (hosts.length == 0) {
        throw new IllegalArgumentException("no client hosts");
      }
      this.clientHosts = List.of(hosts);
      return this;
    }

    /**
     * Starts each client session at a virtual time drawn uniformly from {@code [0, spread)}
     * instead of all at once.
     *
     * @param spread the spread; 0 for all at the start
     * @param unit its unit
     * @return this builder
     */
    public Builder startWithin(long spread, TimeUnit unit) {
      this.startSpreadNanos = unit.toNanos(spread);
      return this;
    }

    /**
     * Whether the sessions ready at one instant run in an order drawn from the seed (the default)
     * or in the order they became ready.
     *
     * @param shuffle true to draw the order
     * @return this builder
     */
    public Builder shuffleReady(boolean shuffle) {
      this.shuffle = shuffle;
      return this;
    }

    /**
     * Keeps every event of the log, so that a failure's report shows the events around it; also
     * set by the system property {@value Simulation#LOG_PROPERTY}. Costs memory per event: for
     * replays, not for big runs.
     *
     * @param keep true to keep the log
     * @return this builder
     */
    public Builder keepLog(boolean keep) {
      this.keepLog = keep;
      return this;
    }

    /**
     * The virtual time after which the clients still running are cancelled (default 24 hours).
     *
     * @param limit the limit
     * @param unit its unit
     * @return this builder
     */
    public Builder virtualTimeLimit(long limit, TimeUnit unit) {
      this.virtualLimitNanos = unit.toNanos(limit);
      return this;
    }

    /**
     * What a failure's report tells to replay the run, e.g. the program's own command line with
     * {@code --seed 42}; by default, the system properties that set the seed and keep the log.
     *
     * @param command the command
     * @return this builder
     */
    public Builder replayCommand(String command) {
      this.replayCommand = Objects.requireNonNull(command, "command");
      return this;
    }

    /**
     * Makes the simulation: scans and prepares the instrumented packages.
     *
     * @return the simulation
     * @throws IllegalStateException if no package is instrumented
     */
    public Simulation build() {
      if (packages.isEmpty()) {
        throw new IllegalStateException("a simulation needs the packages to instrument: instrument(...)");
      }
      String seedProperty = System.getProperty(SEED_PROPERTY);
      if (seedProperty != null && !seedProperty.isBlank()) {
        seed = Long.parseLong(seedProperty.trim());
      }
      if (Boolean.getBoolean(LOG_PROPERTY)) {
        keepLog = true;
      }
      return new Simulation(this);
    }
  }
}
