package io.weft.testsupport;

import io.weft.testsupport.FaultyPeer.Fault;
import io.weft.transport.LineTooLongException;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.TransportTimeoutException;
import java.io.EOFException;
import java.net.ConnectException;
import java.net.SocketException;
import java.util.List;

/**
 * The fault contract: each case is a peer ({@link FaultyPeer}) and what every transport, in
 * every mode, must make of it, as seen by the client session
 * ({@code io.weft.testsupport.faults.FaultSession}). Exception types are exact: a subclass is a
 * different answer. Message fragments are the "same kind of message" half of the contract.
 *
 * <p>Session counts: {@link #sessions} in the concurrent modes; {@link #syncSessions} in SYNC,
 * where sessions run one after another, so a case that waits for its timeout runs a handful
 * (a thousand stalls would take five minutes there and prove nothing more). The byte-heavy
 * cases are bounded by bytes rather than sessions: a run moves at most about 300 MB per case,
 * so that the suite, run for every transport and mode, stays within its few minutes on a
 * shared two-core machine.
 */
public enum FaultCase {
  /** A well-behaved echo, mixed among the faults: three exchanges that must succeed. */
  CONTROL(Fault.ECHO, List.of(), "", 1000, 1000),
  /** A line without end: {@link LineTooLongException} as soon as the limit is passed. */
  ENDLESS_LINE(Fault.ENDLESS_LINE, List.of(LineTooLongException.class), "line longer than", 1000, 1000),
  /** Nothing comes: {@link TransportTimeoutException} after the operation timeout. */
  STALL(Fault.STALL, List.of(TransportTimeoutException.class), "timed out", 1000, 5),
  /** Half a line, then a TCP reset: {@link SocketException}, "Connection reset". */
  RESET_MID_LINE(Fault.RESET_MID_LINE, List.of(SocketException.class), "reset", 1000, 1000),
  /** A line that is not the answer: the client's {@link ProtocolViolationException}. */
  GARBAGE(Fault.GARBAGE, List.of(ProtocolViolationException.class), "expected the echo", 1000, 1000),
  /** One byte every 50 ms: {@link TransportTimeoutException} at the session deadline. */
  DRIP(Fault.DRIP, List.of(TransportTimeoutException.class), "session deadline", 1000, 3),
  /** One answer, then the peer's FIN: the next read is {@link EOFException}. */
  HALF_CLOSE(Fault.HALF_CLOSE, List.of(EOFException.class), "", 1000, 1000),
  /** Nothing listens: {@link ConnectException} naming the address. */
  REFUSED(null, List.of(ConnectException.class), "connect to ", 1000, 1000),
  /**
   * The peer dies part-way through: sessions it served succeed, sessions connected when it dies
   * see a reset ({@link SocketException}), later ones a refused connect ({@link ConnectException}).
   */
  KILLED_MID_RUN(Fault.KILLED_MID_RUN, List.of(SocketException.class, ConnectException.class), "", 1000, 1000),
  /** A 1 MiB reply read with readBytes: must succeed (it is more than the inbound buffer's limit). */
  REPLY_1_MIB(Fault.BIG_REPLY, List.of(), "", 250, 100),
  /** A 16 MiB reply read with readBytes: must succeed. */
  REPLY_16_MIB(Fault.BIG_REPLY, List.of(), "", 16, 8),
  /** A line of 1,000,000 bytes read with a 2 MiB limit: must succeed. */
  LINE_1_MB(Fault.LONG_LINE, List.of(), "", 250, 100),
  /**
   * A peer that never reads: the client writes and flushes 1 MiB at a time until a flush cannot
   * hand its bytes to the operating system within the 300 ms operation timeout,
   * {@link TransportTimeoutException} "flush timed out after 300 ms", and the transport is
   * closed. Few sessions: each holds a full socket send buffer (up to a few MiB of kernel
   * memory) until it times out.
   */
  FLUSH_TO_NON_READER(Fault.NO_READ, List.of(TransportTimeoutException.class), "flush timed out after", 16, 3);

  private final Fault fault;
  private final List<Class<? extends Throwable>> failures;
  private final String messageFragment;
  private final int sessions;
  private final int syncSessions;

  FaultCase(Fault fault, List<Class<? extends Throwable>> failures, String messageFragment, int sessions,
      int syncSessions) {
    this.fault = fault;
    this.failures = failures;
    this.messageFragment = messageFragment;
    this.sessions = sessions;
    this.syncSessions = syncSessions;
  }

  /** The peer's fault, or null when there is no peer ({@link #REFUSED}). */
  public Fault fault() {
    return fault;
  }

  /** Starts this case's peer, or returns null for {@link #REFUSED}. */
  public FaultyPeer startPeer(int sessionsOfCase) throws java.io.IOException {
    if (fault == null) {
      return null;
    }
    FaultyPeer.Builder b = FaultyPeer.builder(fault);
    switch (this) {
      case REPLY_1_MIB:
        b.replyBytes(1 << 20);
        break;
      case REPLY_16_MIB:
        b.replyBytes(16 << 20);
        break;
      case LINE_1_MB:
        b.lineBytes(1_000_000);
        break;
      case KILLED_MID_RUN:
        b.killAfter(sessionsOfCase / 4);
        break;
      default:
        break;
    }
    return b.start();
  }

  /**
   * The exact types a failed session of this case may end with; empty when every session must
   * succeed. {@link #KILLED_MID_RUN} alone allows successes and failures both.
   */
  public List<Class<? extends Throwable>> failures() {
    return failures;
  }

  /** True when every session of the case must fail. */
  public boolean mustFail() {
    return !failures.isEmpty() && this != KILLED_MID_RUN;
  }

  /** What the failure's message must contain (for REFUSED, the address follows). */
  public String messageFragment() {
    return messageFragment;
  }

  /** Sessions per run in the concurrent modes. */
  public int sessions() {
    return sessions;
  }

  /** Sessions per run in SYNC. */
  public int syncSessions() {
    return syncSessions;
  }
}
