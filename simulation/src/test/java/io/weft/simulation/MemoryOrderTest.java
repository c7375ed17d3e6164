package io.weft.simulation;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.simulation.clients.EchoClient;
import io.weft.simulation.servers.EchoServer;
import io.weft.transport.Timeout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A run makes its client sessions in the order they start, not in the order of their indexes, so
 * that the world's one array of sessions, which a young collection copies them in, holds them in
 * the order the run touches them; while each index keeps the start time drawn for it, its host,
 * address and outcome, and the log stays what it was.
 */
class MemoryOrderTest {
  private static final int CLIENTS = 200;
  private static final Pattern START = Pattern.compile("start session=(\\d+) client=1");

  @Test
  void clientsAreMadeInTheOrderTheyStart() {
    int[][] made = new int[1][];
    SimulationResult<String> result = Simulation.builder()
        .seed(7)
        .instrument("io.weft.simulation.clients", "io.weft.simulation.servers")
        .link(Link.of(Latency.uniform(10, 60, TimeUnit.MILLISECONDS)))
        .server(SimulationBasicsTest.SERVER, Server.of(EchoServer.class).withBacklog(Integer.MAX_VALUE))
        .timeout(Timeout.of(5, TimeUnit.SECONDS))
        .startWithin(1, TimeUnit.SECONDS)
        .keepLog(true)
        .observe(500, TimeUnit.MILLISECONDS, () -> made[0] = World.current().madeOrder())
        .build()
        .run(EchoClient.class, CLIENTS, SimulationBasicsTest.SERVER, 3);
    assertTrue(result.allSucceeded(), result.report());

    List<Integer> started = new ArrayList<>();
    for (String line : result.logLines()) {
      Matcher m = START.matcher(line);
      if (m.find()) {
        started.add(Integer.parseInt(m.group(1)));
      }
    }
    assertEquals(CLIENTS, started.size(), "one start line per client");
    int[] clientsMade = java.util.Arrays.copyOf(made[0], CLIENTS);
    int[] startOrder = started.stream().mapToInt(Integer::intValue).toArray();
    assertArrayEquals(startOrder, clientsMade, "clients made in the order they start");
    // The start times stay drawn per index: the order they start in is not the indexes' order.
    int[] indexOrder = java.util.stream.IntStream.range(0, CLIENTS).toArray();
    assertNotEquals(java.util.Arrays.toString(indexOrder), java.util.Arrays.toString(startOrder));
    // Outcomes stay by index: session i's value names session i.
    for (int i = 0; i < CLIENTS; i++) {
      assertEquals("session " + i + " round 2", result.outcomes().get(i).value());
    }
  }
}
