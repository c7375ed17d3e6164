package io.weft.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.Outcome;
import io.weft.simulation.peers.FaultPeer;
import io.weft.testsupport.FaultCase;
import io.weft.testsupport.faults.FaultSession;
import io.weft.transport.Timeout;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The fault catalogue in simulation: each {@link FaultCase} against its simulated peer
 * ({@link FaultPeer}), all cases at once, interleaved, through the same {@link FaultSession}
 * client as the TCP suite; every session must end as it does over TCP, with the exact exception
 * type and the kind of message that {@code docs/errors.md} lists.
 */
class FaultCatalogueTest {
  private static final long STALL_MILLIS = 300;
  private static final long DRIP_DEADLINE_MILLIS = 800;

  private static int sessionsOf(FaultCase c) {
    switch (c) {
      case REPLY_16_MIB:
        return 2;
      case REPLY_1_MIB:
      case LINE_1_MB:
      case FLUSH_TO_NON_READER:
        return 4;
      case KILLED_MID_RUN:
        return 40;
      default:
        return 20;
    }
  }

  @Test
  void everyCaseEndsAsOverTcpWithTheSameExceptionType() {
    Simulation.Builder b = Simulation.builder()
        .seed(2024)
        .instrument("io.weft.testsupport.faults", "io.weft.simulation.peers")
        .link(Link.of(Latency.uniform(1, 5, TimeUnit.MILLISECONDS)))
        .timeout(Timeout.of(10, TimeUnit.SECONDS))
        .startWithin(2, TimeUnit.SECONDS);
    List<SocketAddress> addresses = new ArrayList<>();
    List<String> cases = new ArrayList<>();
    Map<FaultCase, InetSocketAddress> where = new EnumMap<>(FaultCase.class);
    int port = 1000;
    for (FaultCase c : FaultCase.values()) {
      InetSocketAddress address = InetSocketAddress.createUnresolved("peer", port++);
      where.put(c, address);
      int n = sessionsOf(c);
      if (c.fault() != null) {
        int size = c == FaultCase.REPLY_16_MIB ? 16 << 20 : c == FaultCase.REPLY_1_MIB ? 1 << 20 : 1_000_000;
        b.server(address, Server.of(FaultPeer.class, c.fault().name(), "peer", address.getPort(), n / 4, size));
      }
      for (int i = 0; i < n; i++) {
        addresses.add(address);
        cases.add(c.name());
      }
    }
    long[] elapsed = new long[cases.size()];
    SimulationResult<String> result = b.build().run(FaultSession.class, cases.size(), addresses,
        cases.toArray(new String[0]), elapsed, STALL_MILLIS, DRIP_DEADLINE_MILLIS);
    System.out.println(result.summary());
    assertEquals(0, result.stuck(), result.report());
    Map<FaultCase, List<SessionOutcome<String>>> byCase = new EnumMap<>(FaultCase.class);
    for (SessionOutcome<String> o : result.outcomes()) {
      byCase.computeIfAbsent(FaultCase.valueOf(cases.get(o.index())), k -> new ArrayList<>()).add(o);
    }
    for (FaultCase c : FaultCase.values()) {
      List<SessionOutcome<String>> outcomes = byCase.get(c);
      assertEquals(sessionsOf(c), outcomes.size(), c.name());
      if (c == FaultCase.KILLED_MID_RUN) {
        checkKilled(result, outcomes);
        continue;
      }
      for (SessionOutcome<String> o : outcomes) {
        if (c.failures().isEmpty()) {
          assertEquals(Outcome.Status.SUCCEEDED, o.status(), c + ": " + result.describe(o));
          continue;
        }
        assertEquals(Outcome.Status.FAILED, o.status(), c + ": " + result.describe(o));
        Throwable failure = o.failure();
        assertTrue(c.failures().contains(failure.getClass()), c + ": " + result.describe(o));
        String message = String.valueOf(failure.getMessage());
        assertTrue(message.contains(c.messageFragment()), c + ": " + message);
        if (c == FaultCase.STALL) {
          assertTrue(message.startsWith("read timed out after 300 ms waiting for a line"), message);
          // FaultSession's System.nanoTime reads virtual time here: the stall ended at its timeout,
          // not before, and no later than the run's latency allows
          long took = elapsed[o.index()];
          assertTrue(took >= 300_000_000L && took < 320_000_000L, c + " took " + took + " ns");
        } else if (c == FaultCase.DRIP) {
          assertTrue(message.startsWith("read timed out: session deadline of 800 ms passed"), message);
        } else if (c == FaultCase.REFUSED) {
          assertEquals("connect to " + where.get(c) + " failed: Connection refused", message);
        } else if (c == FaultCase.FLUSH_TO_NON_READER) {
          assertEquals("flush timed out after 300 ms", message);
        } else if (c == FaultCase.RESET_MID_LINE) {
          assertEquals("Connection reset", message);
        }
      }
    }
  }

  private static void checkKilled(SimulationResult<String> result, List<SessionOutcome<String>> outcomes) {
    int succeeded = 0;
    int reset = 0;
    int refused = 0;
    for (SessionOutcome<String> o : outcomes) {
      if (o.succeeded()) {
        succeeded++;
      } else if (o.failure() != null && o.failure().getClass() == SocketException.class) {
        reset++;
      } else if (o.failure() != null && o.failure().getClass() == ConnectException.class) {
        refused++;
      } else {
        throw new AssertionError("KILLED_MID_RUN: " + result.describe(o));
      }
    }
    assertTrue(succeeded > 0 && reset > 0 && refused > 0,
        "succeeded " + succeeded + ", reset " + reset + ", refused " + refused);
  }
}
