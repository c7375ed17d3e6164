package io.weft.simulation;

import io.weft.continuations.spi.WaitRegistration;
import io.weft.transport.spi.InboundBuffer;

/**
 * One side of a simulated TCP connection: what has arrived for it, what it has sent, and who waits
 * on it. Bytes cross to the {@link #peer} in the order they were sent; the two sides of one
 * connection share its {@link Net.Path} and id.
 *
 * <p>States, each set once: {@code outputShut} (this side sent its FIN), {@code finReceived}
 * (the peer's FIN arrived), {@code reset} (a reset arrived or was sent), {@code closed} (this side
 * was closed by its owner: data arriving after it is answered with a reset, as TCP does).
 */
final class Endpoint implements WaitRegistration, OpenSet.Member {
  /** Unread plus in-flight bytes a flush may leave before it waits for the reader: the two socket buffers. */
  static final long WINDOW = 1L << 20;

  final long conn;
  final int side;
  final Net.Path path;
  /** True when this side sends from the path's first host. */
  final boolean fromA;
  final InboundBuffer inbound = new InboundBuffer(16);
  long sent;
  long delivered;
  /** When the last segment this side sent arrives: later ones arrive no earlier. */
  long lastArrival;
  boolean blackHoled;
  boolean outputShut;
  boolean finReceived;
  boolean reset;
  boolean closed;
  boolean readerWaiting;
  /** What the read under way asks for at most, in bytes: a line's limit and line end, a count. */
  long wanted;
  Runnable readerWake;
  Runnable flusherWake;
  /**
   * What the peer had taken of this side's bytes when last looked at ({@code delivered} less what
   * is still buffered): only grows, so while {@link #sent} exceeds it by at most the window, a flush
   * may return without looking at the peer, whose memory a run of many sessions has long evicted.
   */
  long peerTakenSeen;
  /** True from the time the peer's flusher registers until this side finds it no longer waiting. */
  boolean peerFlusherMayWait;
  /**
   * The other side; declared after this side's own objects (the buffer, the wake-ups), so that
   * the collector's depth-first copy (see {@link OpenSet}) lays those out next to this side before
   * it follows the peer into the other session.
   */
  Endpoint peer;
  /** A server side's place in its listener's set of open connections; -1 when in none. */
  private int openAt = -1;

  Endpoint(long conn, int side, Net.Path path, boolean fromA) {
    this.conn = conn;
    this.side = side;
    this.path = path;
    this.fromA = fromA;
  }

  @Override
  public int openAt() {
    return openAt;
  }

  @Override
  public void openAt(int at) {
    openAt = at;
  }

  /** The two ends of a new connection; side 0 is the client's. */
  static Endpoint[] pair(long conn, Net.Path path, boolean clientIsA) {
    Endpoint client = new Endpoint(conn, 0, path, clientIsA);
    Endpoint server = new Endpoint(conn, 1, path, !clientIsA);
    client.peer = server;
    server.peer = client;
    return new Endpoint[] {client, server};
  }

  /**
   * True when a flush may return: what this side sent and the peer has not taken is at most the
   * {@link #WINDOW}, or at most what the peer's waiting read asks for (a read that needs more than
   * the window lifts it, bounded by what it asks, as the TCP transports' inbound limit does); or
   * this side has ended. A peer that closed takes nothing more: the flush waits for its reset.
   */
  boolean windowOpen() {
    if (reset || closed || sent - peerTakenSeen <= WINDOW) {
      return true;
    }
    long taken = peer.delivered - peer.inbound.size();
    peerTakenSeen = taken;
    long unconsumed = sent - taken;
    long window = peer.readerWaiting ? Math.max(WINDOW, peer.wanted) : WINDOW;
    return unconsumed <= window;
  }

  /** A flush's wait: registered as this side's flusher, woken when the window opens or the connection ends. */
  @Override
  public void register(Runnable wake) {
    flusherWake = wake;
    peer.peerFlusherMayWait = true;
  }

  void wakeReader() {
    Runnable wake = readerWake;
    if (wake != null) {
      readerWake = null;
      wake.run();
    }
  }

  void wakeFlusher() {
    Runnable wake = flusherWake;
    if (wake != null) {
      flusherWake = null;
      wake.run();
    }
  }

  /** This side took bytes or began to wait for them: a flush of the peer's may go on. */
  void readProgress() {
    if (!peerFlusherMayWait) {
      return; // the peer's flusher has not registered since it was last seen not waiting
    }
    if (peer.flusherWake == null) {
      peerFlusherMayWait = false;
    } else if (peer.windowOpen()) {
      peer.wakeFlusher();
    }
  }
}
