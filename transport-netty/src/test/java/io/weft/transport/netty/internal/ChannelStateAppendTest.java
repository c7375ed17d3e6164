package io.weft.transport.netty.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A channel's input goes from Netty's buffer straight into the session's inbound buffer: exactly
 * the readable bytes, from the buffer's reader index, whatever the buffer (pooled direct, heap,
 * composite) and however large, on a Weft event loop and elsewhere; and the buffer is released.
 */
class ChannelStateAppendTest {
  private static NioEventLoopGroup loop;

  @BeforeAll
  static void start() {
    loop = new NioEventLoopGroup(1, EventLoops.threads("append-test-"));
  }

  @AfterAll
  static void stop() {
    loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private static byte[] pattern(int length) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) (i * 31 % 251);
    }
    return bytes;
  }

  private static ByteBuf message(String kind, byte[] bytes, int skip) {
    ByteBuf buf;
    switch (kind) {
      case "pooled-direct":
        buf = PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length);
        buf.writeBytes(bytes);
        break;
      case "heap":
        buf = Unpooled.buffer(bytes.length);
        buf.writeBytes(bytes);
        break;
      case "composite":
        CompositeByteBuf composite = Unpooled.compositeBuffer();
        int half = bytes.length / 2;
        composite.addComponent(true, Unpooled.directBuffer(half).writeBytes(bytes, 0, half));
        composite.addComponent(true, Unpooled.buffer(bytes.length - half).writeBytes(bytes, half, bytes.length - half));
        buf = composite;
        break;
      default:
        throw new IllegalArgumentException(kind);
    }
    buf.readerIndex(skip);
    return buf;
  }

  /** Delivers one message through the state's handler on {@code onLoop}'s thread or this one. */
  private static <T> T run(boolean onLoop, Callable<T> task) throws Exception {
    return onLoop ? loop.submit(task).get(30, TimeUnit.SECONDS) : task.call();
  }

  @ParameterizedTest
  @ValueSource(strings = {"pooled-direct", "heap", "composite"})
  void theReadableBytesLandExactlyOnAWeftEventLoopAndElsewhere(String kind) throws Exception {
    for (boolean onLoop : new boolean[] {true, false}) {
      // Past the 8 KiB a loop thread's scratch array held, and 64 KiB more: several chunks before.
      int length = 80 * 1024 + 17;
      byte[] bytes = pattern(length + 3);
      ChannelState state = new ChannelState(1024 * 1024);
      // Made on the thread that delivers, which its activation names as the input's loop.
      EmbeddedChannel channel = run(onLoop, () -> new EmbeddedChannel(state.newHandler()));
      ByteBuf first = message(kind, bytes, 3);
      ByteBuf second = message(kind, new byte[] {'x', 'y', '\r', '\n'}, 1);
      run(onLoop, () -> channel.writeInbound(first, second));
      assertEquals(0, first.refCnt(), "the handler released the message");
      assertEquals(0, second.refCnt(), "the handler released the message");
      byte[] got = new byte[length];
      assertTrue(run(onLoop, () -> state.pollFully(got, 0, length)));
      byte[] expected = new byte[length];
      System.arraycopy(bytes, 3, expected, 0, length);
      assertArrayEquals(expected, got, kind + (onLoop ? " on the loop" : " off the loop"));
      assertEquals("y", run(onLoop, () -> state.pollLine(10, true, UTF_8)));
      run(onLoop, () -> state.close("test over"));
      channel.finishAndReleaseAll();
    }
  }
}
