package io.weft.simulation;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The simulated network: hosts by name, a {@link Path} for each pair of hosts that talk (its
 * {@link Link}, its partitions, its bandwidth queue), the listeners, and the segments in flight as
 * events of the {@link World}. TCP as the operating system shows it to a socket: a connect takes a
 * round trip and is refused by a host with no listener; bytes of one connection arrive in order, a
 * FIN after the bytes before it; data sent to a closed socket is answered with a reset; a segment
 * sent into a partition is sent again once it heals (retransmission), one into a black hole never
 * arrives.
 */
final class Net {
  private static final long SYN_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final World world;
  private final Link defaultLink;
  private final Map<String, Link> links;
  private final Map<String, Path> paths = new HashMap<>();
  private final List<Path> pathsInOrder = new ArrayList<>();
  private final Map<String, Listener> listeners = new HashMap<>();
  private final InFlightBytes inFlight = new InFlightBytes();
  /** Segments that have arrived, for the next ones to be sent (see {@link Segment}). */
  private Segment freeSegments;
  private int freeSegmentCount;
  private long nextConn;

  Net(World world, Link defaultLink, Map<String, Link> links) {
    this.world = world;
    this.defaultLink = defaultLink;
    this.links = links;
  }

  static String pairKey(String a, String b) {
    return a.compareTo(b) <= 0 ? a + "\u0000" + b : b + "\u0000" + a;
  }

  static String addressKey(InetSocketAddress address) {
    return address.getHostString() + ":" + address.getPort();
  }

  /** The path between two hosts, made on first use. */
  Path path(String one, String other) {
    String key = pairKey(one, other);
    Path p = paths.get(key);
    if (p == null) {
      String a = one.compareTo(other) <= 0 ? one : other;
      p = new Path(pathsInOrder.size(), a, a.equals(one) ? other : one, links.getOrDefault(key, defaultLink));
      paths.put(key, p);
      pathsInOrder.add(p);
    }
    return p;
  }

  void listen(Listener listener) {
    String key = addressKey(listener.address);
    if (listeners.putIfAbsent(key, listener) != null) {
      throw new IllegalStateException("two servers at " + listener.address);
    }
  }

  Listener listener(SocketAddress address) {
    return address instanceof InetSocketAddress ? listeners.get(addressKey((InetSocketAddress) address)) : null;
  }

  /** Partitions the two hosts from {@code from} for {@code nanos} (forever: a black hole). */
  void partition(String one, String other, long from, long nanos) {
    Path p = path(one, other);
    long until = nanos == Long.MAX_VALUE ? Long.MAX_VALUE : from + nanos;
    p.windows.add(new long[] {from, until});
    world.at(from, new World.Event() {
      @Override
      void fire() {
        world.log.add(world.now(), EventLog.PARTITION, p.id, until, 0);
      }
    });
    if (until != Long.MAX_VALUE) {
      world.at(until, new World.Event() {
        @Override
        void fire() {
          world.log.add(world.now(), EventLog.HEAL, p.id, 0, 0);
        }
      });
    }
  }

  /**
   * The link between two hosts as plain data: its settings, the windows in which it is cut, and
   * when each direction's wire is free again (bandwidth).
   */
  static final class Path {
    final int id;
    final String a;
    final String b;
    final Link link;
    final List<long[]> windows = new ArrayList<>();
    long busyFromA;
    long busyFromB;

    Path(int id, String a, String b, Link link) {
      this.id = id;
      this.a = a;
      this.b = b;
      this.link = link;
    }

    /**
     * When {@code bytes} sent now from one end arrive at the other: after the wire is free and
     * they are on it, plus a latency draw; a segment that would be sent or arrive inside a
     * partition is sent again as it heals. -1 when it never arrives (a partition without end).
     */
    long arrival(World world, boolean fromA, int bytes) {
      long now = world.now();
      long start = now;
      long bandwidth = link.bytesPerSecond();
      if (bandwidth > 0L && bytes > 0) {
        long busy = fromA ? busyFromA : busyFromB;
        start = Math.max(now, busy);
        long onWire = start + (long) Math.ceil(bytes * 1e9 / bandwidth);
        if (fromA) {
          busyFromA = onWire;
        } else {
          busyFromB = onWire;
        }
        start = onWire;
      }
      long arrival = start + link.latency().sample(world.random);
      for (int round = 0; round <= windows.size(); round++) {
        long[] cut = cutAt(start, arrival);
        if (cut == null) {
          return arrival;
        }
        if (cut[1] == Long.MAX_VALUE) {
          return -1L;
        }
        start = cut[1];
        arrival = start + link.latency().sample(world.random);
      }
      return arrival;
    }

    private long[] cutAt(long sent, long arrives) {
      for (long[] w : windows) {
        if ((sent >= w[0] && sent < w[1]) || (arrives >= w[0] && arrives < w[1]) || (sent < w[0] && arrives >= w[1])) {
          return w;
        }
      }
      return null;
    }
  }

  // ---- Connecting.

  /** A connect under way, as its connector waits on it. */
  static final class Connecting {
    final long id;
    final int session;
    final Path path;
    final boolean clientIsA;
    final InetSocketAddress remote;
    int attempt;
    boolean done;
    boolean refused;
    boolean abandoned;
    Endpoint endpoint;
    Runnable wake;

    Connecting(long id, int session, Path path, boolean clientIsA, InetSocketAddress remote) {
      this.id = id;
      this.session = session;
      this.path = path;
      this.clientIsA = clientIsA;
      this.remote = remote;
    }

    void finish() {
      done = true;
      Runnable w = wake;
      if (w != null) {
        wake = null;
        w.run();
      }
    }
  }

  Connecting connect(String fromHost, InetSocketAddress remote, int session) {
    Path path = path(fromHost, remote.getHostString());
    Connecting c = new Connecting(nextConn++, session, path, path.a.equals(fromHost), remote);
    world.log.add(world.now(), EventLog.CONNECT, session, c.id, remote.getPort());
    sendSyn(c);
    return c;
  }

  private void sendSyn(Connecting c) {
    long arrival = c.path.arrival(world, c.clientIsA, 0);
    if (arrival < 0L) {
      world.log.add(world.now(), EventLog.SYN_DROPPED, c.session, c.id, c.attempt);
      return;
    }
    world.at(arrival, new World.Event() {
      @Override
      void fire() {
        synArrived(c);
      }
    });
  }

  private void synArrived(Connecting c) {
    if (c.abandoned) {
      return;
    }
    Listener listener = listeners.get(addressKey(c.remote));
    Link link = c.path.link;
    boolean refuse = listener == null || listener.closed
        || (link.refusals() > 0.0 && world.random.nextDouble() < link.refusals());
    if (!refuse && !listener.hasRoom()) {
      // The accept queue is full: the SYN is dropped and the client's TCP sends it again later.
      world.log.add(world.now(), EventLog.SYN_DROPPED, c.session, c.id, c.attempt);
      long retry = SYN_RETRY_NANOS << Math.min(c.attempt, 5);
      c.attempt++;
      world.at(world.now() + retry, new World.Event() {
        @Override
        void fire() {
          if (!c.abandoned) {
            sendSyn(c);
          }
        }
      });
      return;
    }
    long back = c.path.arrival(world, !c.clientIsA, 0);
    if (back < 0L) {
      return; // the answer vanishes: the connect times out
    }
    if (refuse) {
      world.at(back, new World.Event() {
        @Override
        void fire() {
          world.log.add(world.now(), EventLog.REFUSED, c.session, c.id, 0);
          c.refused = true;
          c.finish();
        }
      });
      return;
    }
    Endpoint[] ends = Endpoint.pair(c.id, c.path, c.clientIsA);
    Endpoint client = ends[0];
    Endpoint server = ends[1];
    server.lastArrival = back;
    if (link.blackHoles() > 0.0 && world.random.nextDouble() < link.blackHoles()) {
      client.blackHoled = true;
      server.blackHoled = true;
    }
    c.endpoint = client;
    listener.arrive(server);
    world.at(back, new World.Event() {
      @Override
      void fire() {
        if (c.abandoned) {
          // The client gave up before the SYN-ACK came: its TCP answers with a reset.
          client.closed = true;
          reset(client);
          return;
        }
        world.log.add(world.now(), EventLog.ESTABLISHED, c.id, 0, 0);
        c.finish();
      }
    });
  }

  // ---- Segments.

  private static final int DATA = 0;
  private static final int FIN = 1;
  private static final int RST = 2;

  /** Empty segments kept for reuse at most (arrivals and sends alternate: a few are enough). */
  private static final int KEPT_SEGMENTS = 1024;

  /**
   * One segment in flight: what it is, for which side, and where its bytes are. Used again once
   * it has arrived: a segment is one event, taken off the queue once, and nothing keeps it after
   * it fired; a busy run has about one in flight per session, so a new one per send was one more
   * object per round trip to allocate, and to copy when in flight across a young collection.
   */
  private final class Segment extends World.Event {
    private Endpoint to;
    private int kind;
    private InFlightBytes.Chunk chunk;
    private int offset;
    private int length;
    private Segment nextFree;

    @Override
    void fire() {
      Endpoint end = to;
      int k = kind;
      InFlightBytes.Chunk c = chunk;
      int off = offset;
      int len = length;
      to = null;
      chunk = null;
      if (freeSegmentCount < KEPT_SEGMENTS) {
        nextFree = freeSegments;
        freeSegments = this;
        freeSegmentCount++;
      }
      try {
        arrived(end, k, c, off, len);
      } finally {
        if (c != null) {
          inFlight.release(c);
        }
      }
    }
  }

  private Segment segment(Endpoint to, int kind, InFlightBytes.Chunk chunk, int length) {
    Segment s = freeSegments;
    if (s == null) {
      s = new Segment();
    } else {
      freeSegments = s.nextFree;
      s.nextFree = null;
      freeSegmentCount--;
    }
    s.to = to;
    s.kind = kind;
    s.chunk = chunk;
    s.offset = chunk == null ? 0 : chunk.used - length;
    s.length = length;
    return s;
  }

  /** Sends {@code length} bytes of {@code src} (copied now) from {@code from} to its peer. */
  void send(Endpoint from, byte[] src, int length) {
    from.sent += length;
    world.log.add(world.now(), EventLog.SEND, from.conn, from.side, length);
    transmit(from, DATA, src, length);
  }

  /** Half-closes {@code from}'s sending side: its FIN follows the bytes already sent. */
  void shutdownOutput(Endpoint from) {
    if (from.outputShut || from.reset) {
      return;
    }
    from.outputShut = true;
    transmit(from, FIN, null, 0);
  }

  /**
   * The owner closes {@code end}: a FIN after what it sent, or a reset if bytes it never read are
   * still buffered (as TCP does). Its own waits end.
   */
  void close(Endpoint end) {
    if (end.closed) {
      return;
    }
    end.closed = true;
    world.log.add(world.now(), EventLog.CLOSE, end.conn, end.side, 0);
    if (!end.reset) {
      if (end.inbound.size() > 0) {
        reset(end);
      } else {
        shutdownOutput(end);
      }
    }
    end.wakeReader();
    end.wakeFlusher();
    end.peer.readProgress();
  }

  /** Resets the connection from {@code from}'s side: the peer sees a reset after what came before. */
  void reset(Endpoint from) {
    if (from.reset) {
      return;
    }
    from.reset = true;
    transmit(from, RST, null, 0);
    from.wakeReader();
    from.wakeFlusher();
  }

  private void transmit(Endpoint from, int kind, byte[] src, int length) {
    if (from.blackHoled) {
      world.log.add(world.now(), EventLog.DROP, from.conn, from.side, kind == DATA ? length : -kind);
      return;
    }
    long arrival = from.path.arrival(world, from.fromA, length);
    if (arrival < 0L) {
      world.log.add(world.now(), EventLog.DROP, from.conn, from.side, kind == DATA ? length : -kind);
      return;
    }
    arrival = Math.max(arrival, from.lastArrival);
    from.lastArrival = arrival;
    InFlightBytes.Chunk chunk = kind == DATA ? inFlight.put(src, 0, length) : null;
    world.at(arrival, segment(from.peer, kind, chunk, length));
  }

  private void arrived(Endpoint to, int kind, InFlightBytes.Chunk chunk, int offset, int length) {
    if (to.reset) {
      return; // a reset connection takes nothing more
    }
    switch (kind) {
      case DATA:
        if (to.closed) {
          world.log.add(world.now(), EventLog.SEND_TO_CLOSED, to.conn, to.side, length);
          reset(to);
          return;
        }
        double resets = to.path.link.resets();
        if (resets > 0.0 && world.random.nextDouble() < resets) {
          resetBoth(to);
          return;
        }
        to.inbound.append(chunk.bytes, offset, length);
        to.delivered += length;
        world.log.add(world.now(), EventLog.DELIVER, to.conn, to.side, length);
        to.wakeReader();
        break;
      case FIN:
        to.finReceived = true;
        to.inbound.markEof();
        world.log.add(world.now(), EventLog.FIN, to.conn, to.side, 0);
        to.wakeReader();
        break;
      default:
        to.reset = true;
        world.log.add(world.now(), EventLog.RESET, to.conn, to.side, 0);
        to.wakeReader();
        to.wakeFlusher();
        break;
    }
  }

  /** The link resets a connection: both sides see it now. */
  private void resetBoth(Endpoint one) {
    for (Endpoint e : new Endpoint[] {one, one.peer}) {
      if (!e.reset) {
        e.reset = true;
        world.log.add(world.now(), EventLog.RESET, e.conn, e.side, 1);
        e.wakeReader();
        e.wakeFlusher();
      }
    }
  }
}
