package io.weft.protocols.internal;

import io.weft.transport.ProtocolViolationException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Bytes of one body or bulk string, held in segments of at most {@value #STEP} bytes that are
 * allocated only as data arrives: a peer's claimed length is never allocated ahead of its bytes.
 * {@link #toByteArray()} copies the segments into one array once, so a body of {@code n} bytes costs
 * at most {@code 2n + STEP} bytes of allocation, never the doubling-and-trimming {@code ~3n}.
 *
 * <p>Lifecycle: {@link #room(long)} before each read into {@link #segment()} at {@link #position()},
 * {@link #advance(int)} with what arrived, {@link #toByteArray()} at the end. Plain data, no I/O: the
 * reading loops live in {@link Wire}, so that continuation mode rewrites them like any client code.
 */
public final class GrowingBytes {
  /** The most bytes allocated ahead of what has arrived. */
  public static final int STEP = 16 * 1024;
  /** The largest array the JVM reliably allocates. */
  public static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

  private static final byte[] EMPTY = new byte[0];

  private List<byte[]> full;
  private byte[] segment = EMPTY;
  private int position;
  private long size;

  /**
   * Makes room for the next read and returns how many bytes it may take: at most {@code wanted},
   * at most {@value #STEP}, and at least 1.
   *
   * @param wanted how many bytes the caller expects at most (the rest of a known length, or
   *     {@link Long#MAX_VALUE} when the end is unknown)
   * @return the room in {@link #segment()} from {@link #position()}
   * @throws ProtocolViolationException if the bytes would no longer fit one Java array
   */
  public int room(long wanted) throws ProtocolViolationException {
    if (position == segment.length) {
      if (size >= MAX_ARRAY) {
        throw new ProtocolViolationException("more than " + MAX_ARRAY + " bytes, the most a Java array holds");
      }
      if (position > 0) {
        if (full == null) {
          full = new ArrayList<>();
        }
        full.add(segment);
      }
      // At least as long as what has arrived (up to a step): a body of many tiny blocks, such as
      // one-byte chunks, then keeps a few segments rather than an array (and its header) per block.
      segment = new byte[(int) Math.min(Math.min(Math.max(wanted, size), STEP), MAX_ARRAY - size)];
      position = 0;
    }
    return (int) Math.min(segment.length - position, wanted);
  }

  /**
   * The segment that the next read fills.
   *
   * @return the current segment
   */
  public byte[] segment() {
    return segment;
  }

  /**
   * Where in {@link #segment()} the next read goes.
   *
   * @return the offset in the current segment
   */
  public int position() {
    return position;
  }

  /**
   * Counts {@code n} bytes just read into {@link #segment()} at {@link #position()}.
   *
   * @param n how many bytes arrived
   */
  public void advance(int n) {
    position += n;
    size += n;
  }

  /**
   * How many bytes have arrived.
   *
   * @return the size so far
   */
  public long size() {
    return size;
  }

  /**
   * The last bytes that arrived, quoted for a message.
   *
   * @return the current segment's bytes, quoted
   */
  public String quoteTail() {
    return ProtocolViolationException.quote(segment, 0, position);
  }

  /**
   * All the bytes, in one array of exactly {@link #size()} bytes.
   *
   * @return the bytes
   */
  public byte[] toByteArray() {
    if (full == null) {
      return position == segment.length ? segment : Arrays.copyOf(segment, position);
    }
    byte[] all = new byte[(int) size];
    int at = 0;
    for (byte[] s : full) {
      System.arraycopy(s, 0, all, at, s.length);
      at += s.length;
    }
    System.arraycopy(segment, 0, all, at, position);
    return all;
  }
}
