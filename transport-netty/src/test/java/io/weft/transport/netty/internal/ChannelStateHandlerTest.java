package io.weft.transport.netty.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerAdapter;
import io.netty.channel.ChannelPipelineException;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

/**
 * A connection state's handler is added to one pipeline only, as Netty treats a handler class
 * without {@code @Sharable}: a second pipeline refuses it.
 */
class ChannelStateHandlerTest {
  @Test
  void aSecondPipelineRefusesTheHandler() {
    ChannelState state = new ChannelState(1024);
    ChannelHandler handler = state.newHandler();
    assertFalse(((ChannelHandlerAdapter) handler).isSharable());
    // The handler answers isSharable() with a constant; annotated @Sharable, Netty's answer would differ.
    assertFalse(handler.getClass().isAnnotationPresent(ChannelHandler.Sharable.class));
    EmbeddedChannel first = new EmbeddedChannel(handler);
    EmbeddedChannel second = new EmbeddedChannel();
    try {
      ChannelPipelineException e =
          assertThrows(ChannelPipelineException.class, () -> second.pipeline().addLast(handler));
      assertTrue(e.getMessage().endsWith("is not a @Sharable handler, so can't be added or removed multiple times."),
          e::getMessage);
    } finally {
      state.close("test over");
      first.finishAndReleaseAll();
      second.finishAndReleaseAll();
    }
  }
}
