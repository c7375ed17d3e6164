package io.weft.protocols.parsing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.protocols.internal.GrowingBytes;
import org.junit.jupiter.api.Test;

/** How {@link GrowingBytes} holds what arrives in many tiny blocks, such as one-byte chunks. */
class GrowingBytesTest {
  @Test
  void manyOneByteBlocksShareAFewSegmentsInsteadOfAnArrayEach() throws Exception {
    int blocks = 4096;
    byte[] expected = new byte[blocks];
    long[] allocated = new long[1];
    byte[][] result = new byte[1][];
    for (int round = 0; round < 2; round++) {
      // The second round is measured: the first pays for class loading.
      allocated[0] = Allocation.of(() -> {
        GrowingBytes bytes = new GrowingBytes();
        for (int i = 0; i < blocks; i++) {
          bytes.room(1);
          bytes.segment()[bytes.position()] = (byte) i;
          bytes.advance(1);
        }
        result[0] = bytes.toByteArray();
      });
    }
    for (int i = 0; i < blocks; i++) {
      expected[i] = (byte) i;
    }
    assertArrayEquals(expected, result[0]);
    // An array per block would cost 24 bytes each (its header) and a list slot: ~100 KB here.
    // Segments as long as what has arrived: ~2 x 4 KiB, the copy 4 KiB, and a short list.
    assertTrue(allocated[0] < 4L * blocks, "allocated " + allocated[0] + " bytes for " + blocks + " one-byte blocks");
  }
}
