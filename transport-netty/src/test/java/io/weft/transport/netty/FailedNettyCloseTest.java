package io.weft.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A Netty channel whose pipeline fails its close (a handler's close throws: Netty fails the
 * close's promise with it and leaves the channel open) is closed underneath the pipeline, so
 * its close is reported and its session's place in the run is freed. Before, the channel stayed
 * open, its close was never reported, and with {@code maxInFlight(1)} the second session was
 * never admitted: the run did not return.
 */
class FailedNettyCloseTest {
  private static final int SESSIONS = 3;

  static List<Mode> modes() {
    return List.of(Mode.SYNC, Mode.THREADS);
  }

  @ParameterizedTest
  @MethodSource("modes")
  // A hang fails the test instead of blocking the build.
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aCloseThePipelineFailedIsMadeUnderneathAndFreesTheSessionsPlace(Mode mode) throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); FailingCloses connector = new FailingCloses(NettyConnector.tcp());
         SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector).address(tcp.address())
             .maxInFlight(1).timeout(Timeout.of(30, TimeUnit.SECONDS)).closeWait(30, TimeUnit.SECONDS).build()) {
      RunResult<String> result = runner.run(Echo.class, SESSIONS);
      assertEquals(SESSIONS, connector.failedCloses.get());
      // Every channel closed, and its close reported, before run() returned: the connector is
      // closed only after this.
      assertEquals(0, connector.netty.openCount());
      assertEquals(SESSIONS, result.outcomes().size());
      for (int i = 0; i < SESSIONS; i++) {
        Outcome<String> outcome = result.outcome(i);
        assertEquals(Outcome.Status.SUCCEEDED, outcome.status(), i + ": " + outcome);
        assertEquals("session " + i, outcome.value());
      }
    }
  }

  /** NettyConnector's transports, each with a handler whose close throws. */
  private static final class FailingCloses implements Connector {
    final NettyConnector netty;
    final AtomicInteger failedCloses = new AtomicInteger();

    FailingCloses(NettyConnector netty) {
      this.netty = netty;
    }

    @Override
    public Transport connect(SocketAddress remote, Timeout timeout) throws IOException {
      NettyTransport transport = netty.connect(remote, timeout);
      transport.state().channel().pipeline().addFirst("failing-close", new ChannelOutboundHandlerAdapter() {
        @Override
        public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
          failedCloses.incrementAndGet();
          throw new IllegalStateException("close refused by a handler");
        }
      });
      return transport;
    }

    @Override
    public void close() {
      netty.close();
    }
  }

  /** Exchanges one line with the echo server. */
  public static final class Echo implements SessionTask<String> {
    @Override
    public String run(Transport transport, int index) throws IOException {
      transport.writeLine("session " + index);
      transport.flush();
      return transport.readLineStrict(64);
    }
  }
}
