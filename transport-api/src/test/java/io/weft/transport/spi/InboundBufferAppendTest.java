package io.weft.transport.spi;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Appends from direct buffers (MINA's and Netty's reads) of every short length, from the middle
 * of the buffer, across the array's growth, a shrink back and a compaction: every byte arrives in
 * order and the source is consumed.
 */
class InboundBufferAppendTest {
  @Test
  void directAppendsOfEveryLengthKeepEveryByteAcrossGrowthShrinkAndCompaction() throws Exception {
    InboundBuffer buffer = new InboundBuffer(4);
    ByteBuffer direct = ByteBuffer.allocateDirect(128);
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    byte next = 0;
    for (int round = 0; round < 3; round++) {
      for (int len = 0; len <= 40; len++) {
        direct.clear().position(7);
        for (int i = 0; i < len; i++) {
          direct.put(next);
          expected.write(next);
          next = (byte) (next + 13);
        }
        direct.flip().position(7);
        buffer.append(direct);
        assertEquals(direct.limit(), direct.position(), "the source is consumed");
        if (len % 7 == 3) {
          // Take some, so that later appends compact the array rather than grow it.
          byte[] some = new byte[Math.min(5, buffer.size())];
          assertTrue(buffer.pollFully(some, 0, some.length));
          byte[] all = expected.toByteArray();
          assertArrayEquals(java.util.Arrays.copyOf(all, some.length), some);
          expected.reset();
          expected.write(all, some.length, all.length - some.length);
        }
      }
      byte[] got = new byte[buffer.size()];
      assertTrue(buffer.pollFully(got, 0, got.length));
      assertArrayEquals(expected.toByteArray(), got, "round " + round);
      expected.reset();
      buffer.clear();
      assertEquals(4, buffer.capacity(), "a cleared buffer gives its grown array back");
    }
  }

  @Test
  void aLineFromShortDirectAppendsReadsAsFromHeapOnes() throws Exception {
    InboundBuffer buffer = new InboundBuffer(512);
    for (String part : new String[] {":", "12", "3", "\r", "\n", ":4\r\n"}) {
      ByteBuffer direct = ByteBuffer.allocateDirect(part.length());
      direct.put(part.getBytes(US_ASCII)).flip();
      buffer.append(direct);
    }
    assertEquals(":123", buffer.pollLine(100, true, US_ASCII));
    assertEquals(":4", buffer.pollLine(100, true, US_ASCII));
  }
}
