package io.weft.perf.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A finished session keeps nothing: its transport, buffers and MINA session are unreachable
 * once it ends, even while the run that ran it goes on. The live heap after 5,000 finished
 * sessions is within a few MiB of the figure after 1,000, for each transport, against a peer
 * sending a line that never ends (read with an 80 KiB limit, which lifts MINA's 64 KiB inbound
 * limit and grows the buffer) and against an echo. The 100,000-session figures come from
 * {@link FinishedSessionsHeap#main}.
 */
class FinishedSessionsHeapTest {
  private static final int FIRST = 1_000;
  private static final int SESSIONS = 5_000;
  private static final int LINE_LIMIT = 80 * 1024;
  private static final int ECHO_IN_FLIGHT = 50;
  /**
   * Against the endless line each session in flight holds up to 256 KiB (its line limit and
   * MINA's overshoot, in a doubled array), so how many are in flight at a weighing moves the
   * figure by up to that much each: few in flight keeps that noise under 4 MiB.
   */
  private static final int ENDLESS_IN_FLIGHT = 16;
  /** 4,000 sessions that kept even 2 KiB each would be 7.8 MiB; before the fix each kept ~100 KiB. */
  private static final double MAX_GROWTH_MIB = 6.0;

  @ParameterizedTest
  @CsvSource({
    "socket, endless", "mina, endless", "suspending-tcp, endless", "suspending-pipe, endless",
    "socket, echo", "mina, echo", "suspending-tcp, echo", "suspending-pipe, echo",
  })
  void finishedSessionsKeepNoHeap(String transport, String peer) throws Exception {
    FinishedSessionsHeap.Figures figures = FinishedSessionsHeap.measure(transport, peer, SESSIONS, FIRST,
        peer.equals("endless") ? ENDLESS_IN_FLIGHT : ECHO_IN_FLIGHT, LINE_LIMIT);
    assertEquals(0, figures.failed(), figures.toString());
    assertTrue(figures.lastMiB() - figures.firstMiB() < MAX_GROWTH_MIB, figures.toString());
  }
}
