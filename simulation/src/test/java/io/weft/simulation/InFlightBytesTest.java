package io.weft.simulation;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Segments' bytes in shared chunks: each segment gets back exactly the bytes it put, in whatever
 * order the segments arrive, however many are in flight, and a chunk is written again only once
 * every segment in it has been released.
 */
class InFlightBytesTest {

  /** A segment in flight: its chunk, where its bytes are, and what they must be. */
  private static final class Flight {
    final InFlightBytes.Chunk chunk;
    final int offset;
    final byte[] expected;

    Flight(InFlightBytes.Chunk chunk, byte[] expected) {
      this.chunk = chunk;
      this.offset = chunk.used - expected.length;
      this.expected = expected;
    }

    byte[] read() {
      return Arrays.copyOfRange(chunk.bytes, offset, offset + expected.length);
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {1L, 2L, 42L})
  void everySegmentReadsBackItsOwnBytesWhateverTheOrderOfArrival(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    InFlightBytes bytes = new InFlightBytes();
    List<Flight> inFlight = new ArrayList<>();
    int arrived = 0;
    for (int step = 0; step < 20_000; step++) {
      // Up to 2,000 in flight; sizes from 1 byte to past a chunk (a flush of its own).
      if (inFlight.size() < 2_000 && (inFlight.isEmpty() || random.nextInt(3) > 0)) {
        int length = random.nextInt(50) == 0 ? 1 + random.nextInt(2 * InFlightBytes.CHUNK) : 1 + random.nextInt(300);
        byte[] data = new byte[length];
        for (int i = 0; i < length; i++) {
          data[i] = (byte) random.nextInt();
        }
        // The caller's array is copied: changing it afterwards changes nothing in flight.
        byte[] src = new byte[length + 7];
        System.arraycopy(data, 0, src, 3, length);
        inFlight.add(new Flight(bytes.put(src, 3, length), data));
        Arrays.fill(src, (byte) 0x5a);
      } else {
        Flight f = inFlight.remove(random.nextInt(inFlight.size()));
        assertArrayEquals(f.expected, f.read(), "segment " + arrived + " read back other bytes");
        bytes.release(f.chunk);
        arrived++;
      }
    }
    for (Flight f : inFlight) {
      assertArrayEquals(f.expected, f.read());
    }
    assertEquals(true, arrived > 5_000, "segments that arrived: " + arrived);
  }

  @Test
  void aChunkIsReusedOnlyOnceAllItsSegmentsAreReleasedAndWritingMovedOn() {
    InFlightBytes bytes = new InFlightBytes();
    byte[] half = new byte[InFlightBytes.CHUNK / 2];
    InFlightBytes.Chunk first = bytes.put(half, 0, half.length);
    assertSame(first, bytes.put(half, 0, half.length), "the second half fits the same chunk");
    bytes.release(first);
    InFlightBytes.Chunk second = bytes.put(half, 0, 1);
    assertNotSame(first, second, "the first chunk is full: writing moves on");
    bytes.release(first);
    // The first is now empty and no longer written: once the second is full, it is used again.
    assertSame(second, bytes.put(half, 0, half.length));
    assertSame(first, bytes.put(half, 0, half.length), "an empty chunk is used again");
    assertEquals(half.length, first.used);
    assertEquals(1, first.inFlight);
    assertEquals(2, second.inFlight);
  }

  @Test
  void aFlushLargerThanAChunkGetsAChunkOfItsOwnThatIsNotKept() {
    InFlightBytes bytes = new InFlightBytes();
    byte[] big = new byte[InFlightBytes.CHUNK + 1];
    big[InFlightBytes.CHUNK] = 7;
    InFlightBytes.Chunk own = bytes.put(big, 0, big.length);
    assertEquals(big.length, own.bytes.length);
    assertEquals(7, own.bytes[InFlightBytes.CHUNK]);
    bytes.release(own);
    InFlightBytes.Chunk next = bytes.put(big, 0, 10);
    assertNotSame(own, next, "a chunk of a flush's own size is not reused");
    assertEquals(InFlightBytes.CHUNK, next.bytes.length);
  }
}
