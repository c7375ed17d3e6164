package io.weft.simulation;

/**
 * The bytes of the segments in flight in one run, copied into shared chunks rather than an array
 * per segment. A flush copies its bytes in once (as the kernel copies a send into its buffer);
 * the segment keeps where they are, and its arrival copies them into the receiver's inbound
 * buffer and lets go of them. A chunk is used again once every segment in it has arrived (or
 * been dropped) and writing has moved on to another; a segment held back by a partition keeps its
 * chunk until it arrives. Segments arrive in another order than they were sent (links differ), so
 * each chunk counts its segments still in flight instead of the chunks being one ring.
 *
 * <p>Why: a busy run has about one segment in flight per session at any time, and an array per
 * segment was one more object per round trip for the allocator and, in flight across a young
 * collection, for the collector to copy. Only on the run's one thread.
 */
final class InFlightBytes {
  /** The size of a chunk; a flush larger than this gets a chunk of its own, not kept for reuse. */
  static final int CHUNK = 64 * 1024;
  /** Empty chunks kept for reuse at most: a burst of arrivals does not leave its chunks held. */
  private static final int KEPT = 16;

  /** Where one segment's bytes are. */
  static final class Chunk {
    final byte[] bytes;
    /** Bytes written into it so far. */
    int used;
    /** Segments whose bytes are in it and that have not arrived or been dropped. */
    int inFlight;
    Chunk nextFree;

    Chunk(int size) {
      bytes = new byte[size];
    }
  }

  private Chunk current;
  private Chunk free;
  private int freeCount;

  /**
   * Copies {@code length} bytes of {@code src} from {@code offset} in, for one segment.
   *
   * @return the chunk they are in, from {@link Chunk#used} minus {@code length}; the segment
   *     gives it back with {@link #release}
   */
  Chunk put(byte[] src, int offset, int length) {
    Chunk c = current;
    if (c == null || c.bytes.length - c.used < length) {
      if (length > CHUNK) {
        c = new Chunk(length);
      } else {
        c = take();
        Chunk old = current;
        current = c;
        if (old != null && old.inFlight == 0) {
          give(old);
        }
      }
    }
    System.arraycopy(src, offset, c.bytes, c.used, length);
    c.used += length;
    c.inFlight++;
    return c;
  }

  /** A segment with bytes in {@code c} arrived or was dropped: its bytes are no longer needed. */
  void release(Chunk c) {
    if (--c.inFlight == 0 && c != current && c.bytes.length == CHUNK) {
      give(c);
    }
  }

  private Chunk take() {
    Chunk c = free;
    if (c == null) {
      return new Chunk(CHUNK);
    }
    free = c.nextFree;
    c.nextFree = null;
    freeCount--;
    c.used = 0;
    return c;
  }

  private void give(Chunk c) {
    if (freeCount < KEPT) {
      c.nextFree = free;
      free = c;
      freeCount++;
    }
  }
}
