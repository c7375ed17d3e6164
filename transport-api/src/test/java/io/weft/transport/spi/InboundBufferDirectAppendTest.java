package io.weft.transport.spi;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * {@link InboundBuffer#append(ByteBuffer)} from a direct buffer (what MINA's read hands over): the
 * bytes from the buffer's position to its limit follow what was there, whatever their number and
 * wherever the array moved or was replaced, and the buffer is consumed.
 */
class InboundBufferDirectAppendTest {

  private static ByteBuffer direct(String text, int offset) {
    byte[] bytes = text.getBytes(UTF_8);
    ByteBuffer b = ByteBuffer.allocateDirect(offset + bytes.length + 3);
    b.position(offset);
    b.put(bytes);
    b.flip();
    b.position(offset);
    return b;
  }

  @Test
  void everyLengthFromADirectBufferReadsAsAppendedBytes() throws Exception {
    // Capacity 4: the array grows, and its unread bytes move to the front, along the way.
    InboundBuffer buffer = new InboundBuffer(4);
    StringBuilder expected = new StringBuilder();
    for (int length = 1; length <= 20; length++) {
      String line = ":" + "7".repeat(length - 1);
      ByteBuffer src = direct(line + "\r\n", length % 3);
      buffer.append(src);
      assertEquals(src.limit(), src.position(), "consumed");
      expected.append(line).append(',');
    }
    StringBuilder got = new StringBuilder();
    for (int i = 0; i < 20; i++) {
      got.append(buffer.pollLine(100, true, UTF_8)).append(',');
    }
    assertEquals(expected.toString(), got.toString());
    assertEquals(0, buffer.size());
  }

  @Test
  void appendsAfterTheArrayWasGivenBackGoToTheNewArray() throws Exception {
    InboundBuffer buffer = new InboundBuffer(8);
    buffer.append(direct("+OK\r\n", 0));
    assertEquals("+OK", buffer.pollLine(100, true, UTF_8));
    // Grown past 64 KiB, then emptied: the big array is given back.
    String big = "x".repeat(70_000);
    buffer.append(direct(big + "\r\n", 1));
    assertEquals(big, buffer.pollLine(100_000, true, UTF_8));
    assertEquals(8, buffer.capacity());
    buffer.append(direct(":1\r\n", 2));
    buffer.append(direct(":22\r\n", 0));
    assertEquals(":1", buffer.pollLine(100, true, UTF_8));
    assertEquals(":22", buffer.pollLine(100, true, UTF_8));
    buffer.append(direct("+PONG\r\n", 0));
    buffer.clear();
    buffer.append(direct("+A\r\n", 1));
    assertEquals("+A", buffer.pollLine(100, true, UTF_8));
  }
}
