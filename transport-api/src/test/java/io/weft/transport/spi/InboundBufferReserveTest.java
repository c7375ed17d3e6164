package io.weft.transport.spi;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * {@link InboundBuffer#reserve}, {@link InboundBuffer#array} and {@link InboundBuffer#commit}: a
 * transport copies received bytes straight into the buffer's array, and they read exactly as
 * appended bytes do, after what was there, wherever the array moved them.
 */
class InboundBufferReserveTest {

  private static void copyIn(InboundBuffer buffer, String text) {
    byte[] bytes = text.getBytes(UTF_8);
    int at = buffer.reserve(bytes.length);
    System.arraycopy(bytes, 0, buffer.array(), at, bytes.length);
    buffer.commit(bytes.length);
  }

  @Test
  void reservedBytesFollowAppendedOnesAndFinishTheirLine() throws Exception {
    InboundBuffer buffer = new InboundBuffer(64);
    buffer.append("+PO".getBytes(UTF_8), 0, 3);
    copyIn(buffer, "NG\r\n:12\r\n");
    assertEquals("+PONG", buffer.pollLine(100, true, UTF_8));
    assertEquals(":12", buffer.pollLine(100, true, UTF_8));
    assertEquals(0, buffer.size());
  }

  @Test
  void theIndexIsWhereTheBytesGoAfterTheUnreadOnesMoveToTheFront() throws Exception {
    // 16 bytes of room: 10 taken and 4 unread leave 2 at the tail; 8 more fit once the unread
    // bytes move to the front, which is where the index must then point.
    InboundBuffer buffer = new InboundBuffer(16);
    buffer.append("0123456789abcd".getBytes(UTF_8), 0, 14);
    byte[] taken = new byte[10];
    assertEquals(10, buffer.poll(taken, 0, 10));
    int at = buffer.reserve(8);
    assertEquals(4, at);
    assertEquals(16, buffer.capacity());
    System.arraycopy("efgh\r\nxy".getBytes(UTF_8), 0, buffer.array(), at, 8);
    buffer.commit(8);
    assertEquals("abcdefgh", buffer.pollLine(100, true, UTF_8));
    byte[] rest = new byte[2];
    assertEquals(2, buffer.poll(rest, 0, 2));
    assertArrayEquals("xy".getBytes(UTF_8), rest);
  }

  @Test
  void theIndexIsWhereTheBytesGoInAGrownArray() throws Exception {
    InboundBuffer buffer = new InboundBuffer(8);
    buffer.append("abc".getBytes(UTF_8), 0, 3);
    byte[] one = new byte[1];
    buffer.poll(one, 0, 1);
    copyIn(buffer, "defghijklmnop\r\n");
    assertEquals("bcdefghijklmnop", buffer.pollLine(100, true, UTF_8));
  }

  @Test
  void theArrayGrowsForTheBytesReservedOnly() {
    InboundBuffer buffer = new InboundBuffer(16);
    buffer.reserve(100);
    // What append would grow to: the bytes that arrived, or twice the array, whichever is more.
    assertEquals(100, buffer.capacity());
    buffer.reserve(0);
    assertEquals(100, buffer.capacity());
  }

  @Test
  void nothingIsBufferedUntilCommitted() throws Exception {
    InboundBuffer buffer = new InboundBuffer(16);
    int at = buffer.reserve(4);
    System.arraycopy("ab\r\n".getBytes(UTF_8), 0, buffer.array(), at, 4);
    assertEquals(0, buffer.size());
    assertNull(buffer.pollLine(100, true, UTF_8));
    buffer.commit(2);
    assertEquals(2, buffer.size());
  }

  @Test
  void aCommitPastTheReservationOrANegativeCountIsRefused() {
    InboundBuffer buffer = new InboundBuffer(16);
    buffer.reserve(4);
    // The array has room for 16, but only 4 were set aside.
    assertThrows(IndexOutOfBoundsException.class, () -> buffer.commit(5));
    assertThrows(IndexOutOfBoundsException.class, () -> buffer.commit(17));
    assertThrows(IndexOutOfBoundsException.class, () -> buffer.commit(-1));
    assertThrows(IllegalArgumentException.class, () -> buffer.reserve(-1));
    assertEquals(0, buffer.size());
  }

  @Test
  void aCommitWithoutAReservationOrAfterItsUseIsRefused() throws Exception {
    InboundBuffer buffer = new InboundBuffer(16);
    assertThrows(IndexOutOfBoundsException.class, () -> buffer.commit(1));
    copyIn(buffer, "ab");
    // Its reservation was used: the stale room past the tail is no input.
    assertThrows(IndexOutOfBoundsException.class, () -> buffer.commit(1));
    buffer.reserve(4);
    buffer.append("c".getBytes(UTF_8), 0, 1);
    assertThrows(IndexOutOfBoundsException.class, () -> buffer.commit(1));
    buffer.reserve(4);
    byte[] one = new byte[1];
    assertEquals(1, buffer.poll(one, 0, 1));
    assertThrows(IndexOutOfBoundsException.class, () -> buffer.commit(1));
    assertEquals(2, buffer.size());
  }
}
