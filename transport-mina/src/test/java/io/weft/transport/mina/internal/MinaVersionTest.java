package io.weft.transport.mina.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.buffer.IoBufferAllocator;
import org.apache.mina.core.future.ConnectFuture;
import org.apache.mina.transport.socket.nio.NioSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Weft's MINA processor takes over three parts of MINA's loop ({@code readHere}, {@code select}
 * into its own list, {@code connectHere}) only on the mina-core version they were checked
 * against ({@code NioProcessor.CHECKED_MINA_VERSION}); on any other, each is left to MINA. Runs
 * {@link ProcessorTurnTest}'s sessions (real loopback TCP, one processor: each echoes a line,
 * connects a second time from the processor's loop, echoes over it and closes it there, echoes a
 * third line on its own connection), which check that every session did all its work.
 */
class MinaVersionTest {
  @AfterEach
  void reset() {
    NioProcessor.hooks = null;
    NioProcessor.assumedMinaVersion = null;
  }

  /**
   * Fails when the pom's {@code mina.version} (the mina-core on the test class path) is not the
   * version the processor was checked against: the processor would then leave the three paths to
   * MINA, silently slower.
   */
  @Test
  void minaIsTheVersionTheProcessorWasCheckedAgainst() {
    assertEquals(NioProcessor.CHECKED_MINA_VERSION, NioProcessor.LOADED_MINA_VERSION,
        "mina-core " + NioProcessor.LOADED_MINA_VERSION + " is loaded (the pom's mina.version), the processor was "
            + "checked against " + NioProcessor.CHECKED_MINA_VERSION + ": re-check NioProcessor's readHere, select "
            + "(the kept list) and connectHere against the new AbstractPollingIoProcessor (process, read, the select "
            + "and selected-session walk), NioSocketConnector and NioSocketSession; then set CHECKED_MINA_VERSION");
    assertTrue(NioProcessor.CHECKED_MINA, "the processor's check of the loaded version");
    assertFalse(NioProcessor.checked("2.2.11"), "another version is not the checked one");
  }

  /** The control: on the checked version, the processor reads, selects and connects itself. */
  @Test
  void onTheCheckedMinaTheProcessorReadsSelectsAndConnectsItself() throws Exception {
    Seen seen = runSessions(null);
    assertEquals(0, seen.buffers, "buffers MINA's read allocated on the processor's thread");
    assertEquals(Set.of(true), seen.listing, "the processor's own list in use, where it closed sessions");
    assertTrue(seen.loopConnects.get() >= ProcessorTurnTest.SESSIONS,
        "connects watched by the processor: " + seen.loopConnects);
  }

  /**
   * On a mina-core the processor was not checked against, a plain session's read is MINA's (its
   * heap buffer allocated per read event, then Weft's read of the session as before readHere),
   * the select is MINA's (its selected-key set), and a connect from the loop goes through MINA's
   * connector; the sessions do all their work as on the checked version.
   */
  @Test
  void onAnotherMinaTheProcessorLeavesReadsSelectsAndConnectsToMina() throws Exception {
    Seen seen = runSessions("2.2.11");
    assertTrue(seen.buffers >= ProcessorTurnTest.SESSIONS,
        "buffers MINA's read allocated on the processor's thread: " + seen.buffers);
    assertEquals(Set.of(false), seen.listing, "the processor's own list in use, where it closed sessions");
    assertEquals(0, seen.loopConnects.get(), "connects watched by the processor");
  }

  /** What the processor was seen to do, on its own thread. */
  private static final class Seen {
    int buffers;
    final Set<Boolean> listing = ConcurrentHashMap.newKeySet();
    final AtomicInteger loopConnects = new AtomicInteger();
  }

  /**
   * Runs the sessions on processors made as if {@code version} were loaded (null: the loaded one)
   * and answers what the processor did.
   */
  private static Seen runSessions(String version) throws Exception {
    Seen seen = new Seen();
    NioProcessor.assumedMinaVersion = version;
    IoBufferAllocator before = IoBuffer.getAllocator();
    CountingAllocator counting = new CountingAllocator();
    IoBuffer.setAllocator(counting);
    try {
      ProcessorTurnTest.runSessions(new NioProcessor.Hooks() {
        @Override
        public void finishing(NioSession session, ConnectFuture future) {}

        @Override
        public void watching(NioSession session, ConnectFuture future) {
          seen.loopConnects.incrementAndGet();
        }

        @Override
        public void cancelled(NioSession session, ConnectFuture future) {}

        @Override
        public void closingNow(NioSession session, boolean done) {
          // On the processor's thread, in its turn: whether this turn's select filled its list.
          Thread t = Thread.currentThread();
          if (!done && t instanceof MinaIoThread && ((MinaIoThread) t).loop != null) {
            seen.listing.add(((MinaIoThread) t).loop.listing());
          }
        }
      });
      assertSame(counting, IoBuffer.getAllocator(), "the global allocator");
    } finally {
      IoBuffer.setAllocator(before);
    }
    seen.buffers = counting.onIoThreads();
    return seen;
  }
}
