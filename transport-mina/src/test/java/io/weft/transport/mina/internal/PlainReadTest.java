package io.weft.transport.mina.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.mina.MinaConnector;
import io.weft.transport.mina.SuspendingMinaConnector;
import io.weft.transport.mina.testclient.EchoLinesTask;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.buffer.IoBufferAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A plain session (no filter in its chain) of a Weft MINA connector is read by its processor with
 * no buffer allocated for the read: MINA's own read of a session allocates a heap buffer before
 * each read, which Weft's read into the thread's direct buffer leaves unused, and the processor
 * now reads such a session before MINA would (see {@code NioProcessor.readHere}). Counted through
 * MINA's buffer allocator, which every {@code IoBuffer.allocate} goes through, for allocations
 * made on the connector's I/O threads while sessions exchange lines with a loopback echo server,
 * in continuation mode (sessions resumed on the processor) and with a blocking connector.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(PlainReadTest.Case.class)
class PlainReadTest {
  enum Case {
    CONTINUATIONS(Mode.continuations(1), SuspendingMinaConnector::tcp),
    THREADS(Mode.THREADS, MinaConnector::tcp);

    final Mode mode;
    final Supplier<Connector> connectors;

    Case(Mode mode, Supplier<Connector> connectors) {
      this.mode = mode;
      this.connectors = connectors;
    }
  }

  private static final String CLIENT = "io.weft.transport.mina.testclient";
  private static final int SESSIONS = 20;
  private static final int LINES = 20;

  @Parameter
  Case c;

  @Test
  void aPlainSessionsReadsAllocateNoBufferOnTheIoThread() throws Exception {
    IoBufferAllocator before = IoBuffer.getAllocator();
    CountingAllocator counting = new CountingAllocator();
    IoBuffer.setAllocator(counting);
    try (EchoServer server = EchoServer.tcp(); Connector connector = c.connectors.get();
        SessionRunner runner = SessionRunner.builder().mode(c.mode).connector(connector)
            .allowBlockingConnector(true).address(server.address()).maxInFlight(5)
            .timeout(Timeout.of(60, TimeUnit.SECONDS)).instrument(CLIENT).build()) {
      RunResult<String> result = runner.run(EchoLinesTask.class, SESSIONS, LINES);
      for (Outcome<String> o : result.outcomes()) {
        assertEquals(Outcome.Status.SUCCEEDED, o.status(), () -> "session " + o.index() + ": " + o.failure());
      }
      assertEquals((long) SESSIONS * LINES, server.linesEchoed(), "lines the server echoed");
      // Still the allocator every buffer came from: the count below saw them all.
      assertSame(counting, IoBuffer.getAllocator(), "the global allocator");
    } finally {
      IoBuffer.setAllocator(before);
    }
    assertEquals(0, counting.onIoThreads(),
        "buffers allocated on the connector's I/O threads for " + SESSIONS * LINES + " replies read");
  }
}
