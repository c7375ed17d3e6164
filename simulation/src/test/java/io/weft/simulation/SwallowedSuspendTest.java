package io.weft.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.weft.continuations.NotInstrumentedError;
import io.weft.continuations.Outcome;
import io.weft.simulation.clients.HiddenExchangeClient;
import io.weft.simulation.outside.RecordingExchange;
import io.weft.simulation.servers.EchoServer;
import io.weft.transport.Timeout;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The simulation's transport reaches the task without the runtime's checked wrapper, and makes
 * its entry check itself: a frame that was not rewritten and swallowed a suspend is stopped at
 * its next transport call, before that call does anything, as in {@code CONTINUATIONS} mode.
 */
class SwallowedSuspendTest {
  @Test
  void theCallAfterASwallowedSuspendIsRefusedBeforeItRuns() {
    RecordingExchange.RETURNED.clear();
    Simulation sim = Simulation.builder()
        .seed(7)
        .instrument("io.weft.simulation.clients", "io.weft.simulation.servers")
        .link(Link.of(Latency.fixed(20, TimeUnit.MILLISECONDS)))
        .server(SimulationBasicsTest.SERVER, Server.of(EchoServer.class))
        .timeout(Timeout.of(5, TimeUnit.SECONDS))
        .build();
    // 70 round trips first: more suspends than the run checks frame by frame at its start.
    SimulationResult<String> result = sim.run(HiddenExchangeClient.class, 1, SimulationBasicsTest.SERVER, 70);

    SessionOutcome<String> outcome = result.outcomes().get(0);
    assertEquals(Outcome.Status.FAILED, outcome.status(), result.report());
    NotInstrumentedError e = assertInstanceOf(NotInstrumentedError.class, outcome.failure(), result.report());
    assertEquals(RecordingExchange.class.getName(), e.className(), e.getMessage());
    assertEquals("exchange", e.methodName(), e.getMessage());
    // Its read came back empty-handed (the suspend it swallowed); its write after that never returned.
    assertEquals(List.of("read null"), RecordingExchange.RETURNED, e.getMessage());
  }
}
