package io.weft.simulation;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.List;
import java.util.function.Consumer;

/**
 * A listening address: its accept queue and the server sessions it runs. A connection whose SYN
 * arrives is handed to a new server session while fewer than {@code maxConnections} run; else it
 * waits, established, in the accept queue, up to {@code backlog} of them; beyond that the SYN is
 * dropped and the client sends it again later, as TCP does when a listener's queue is full.
 */
final class Listener {
  final InetSocketAddress address;
  final Server server;
  private final ArrayDeque<Endpoint> queue = new ArrayDeque<>();
  /** Server sides accepted and not yet ended, in the order accepted, for a reset of them all. */
  private final OpenSet<Endpoint> open = new OpenSet<>();
  private final Consumer<Endpoint> spawn;
  private int active;
  boolean closed;

  Listener(InetSocketAddress address, Server server, Consumer<Endpoint> spawn) {
    this.address = address;
    this.server = server;
    this.spawn = spawn;
  }

  boolean hasRoom() {
    return active < server.maxConnections() || queue.size() < server.backlog();
  }

  void arrive(Endpoint serverSide) {
    open.add(serverSide);
    if (active < server.maxConnections()) {
      active++;
      spawn.accept(serverSide);
    } else {
      queue.add(serverSide);
    }
  }

  /** A server session ended: the next queued connection, if any, gets one. */
  void ended(Endpoint serverSide) {
    open.remove(serverSide);
    active--;
    Endpoint queued = queue.poll();
    if (queued != null) {
      active++;
      spawn.accept(queued);
    }
  }

  /** The server sides accepted and not yet ended, in the order accepted. */
  List<Endpoint> open() {
    return open.members();
  }

  int queued() {
    return queue.size();
  }
}
