package io.weft.transport.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.transport.Connector;
import io.weft.transport.Peer;
import io.weft.transport.SocketPeer;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.netty.internal.ChannelState;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Weft's bounded inbound buffer over Netty, for both connectors on plain threads: a peer that
 * sends far more than the limit is read at the pace of the reader ({@code autoRead} off above the
 * limit, so the buffer never holds more than the limit and two reads of Netty's: see
 * {@link ChannelState}), and a read that
 * asks for more than the limit lifts it as far as it asks, and gets its bytes.
 */
class InboundLimitTest {
  private static final int LIMIT = 4 * 1024;
  /** The most one read of Netty's adaptive allocator takes from the socket. */
  private static final int ONE_READ = 64 * 1024;
  private static final Duration PEER_WAIT = Duration.ofSeconds(10);
  private static final Timeout TIMEOUT = Timeout.of(10, TimeUnit.SECONDS);

  enum Kind {
    NETTY(() -> NettyConnector.builder().inboundBufferLimit(LIMIT).tcp()),
    SUSPENDING_NETTY(() -> SuspendingNettyConnector.builder().inboundBufferLimit(LIMIT).tcp());

    final Supplier<Connector> connectors;

    Kind(Supplier<Connector> connectors) {
      this.connectors = connectors;
    }
  }

  private static byte[] pattern(int size) {
    byte[] bytes = new byte[size];
    for (int i = 0; i < size; i++) {
      bytes[i] = (byte) (i * 31 + i / 251);
    }
    return bytes;
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aPeerSendingFarMoreThanTheLimitIsReadAtTheReadersPaceWithinTheLimit(Kind kind) throws Exception {
    byte[] sent = pattern(4 << 20);
    try (Peer peer = new SocketPeer();
         Connector connector = kind.connectors.get();
         Transport transport = connector.connect(peer.address(), TIMEOUT)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      Thread sender = new Thread(() -> {
        try {
          server.send(sent);
        } catch (java.io.IOException e) {
          // the test fails on the bytes read
        }
      }, "bulk-sender");
      sender.start();
      byte[] got = new byte[sent.length];
      byte[] chunk = new byte[1024];
      int at = 0;
      while (at < got.length) {
        int n = transport.read(chunk, 0, Math.min(chunk.length, got.length - at));
        System.arraycopy(chunk, 0, got, at, n);
        at += n;
      }
      sender.join();
      assertArrayEquals(sent, got);
      ChannelState state = NettyTransports.state(transport);
      assertTrue(state.suspensions() > 0, "reading was never turned off");
      assertTrue(state.highWaterMark() <= LIMIT + 2 * ONE_READ,
          "buffered " + state.highWaterMark() + " bytes at most, over the limit and two reads");
      server.close();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aReadOfMoreThanTheLimitLiftsItAsFarAsItAsks(Kind kind) throws Exception {
    byte[] sent = pattern(1 << 20);
    try (Peer peer = new SocketPeer();
         Connector connector = kind.connectors.get();
         Transport transport = connector.connect(peer.address(), TIMEOUT)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      Thread sender = new Thread(() -> {
        try {
          server.send(sent);
        } catch (java.io.IOException e) {
          // the test fails on the bytes read
        }
      }, "bulk-sender");
      sender.start();
      assertArrayEquals(sent, transport.readBytes(sent.length));
      sender.join();
      assertEquals(0, NettyTransports.state(transport).buffered());
      server.close();
    }
  }
}
