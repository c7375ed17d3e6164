package io.weft.transport.binary;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.Transport;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Big-endian numbers, length-prefixed frames and NUL-terminated strings over a {@link Transport}:
 * the pieces of a binary protocol (PostgreSQL's, MySQL's, Kafka's) that every client would
 * otherwise write by hand.
 *
 * <p>Every read here is a loop over {@link Transport#read(byte[], int, int)} and
 * {@link Transport#readFully(byte[], int, int)}, so it costs what they cost: bytes already
 * buffered are returned at once, and a read waits (in continuation mode: suspends) only when
 * the bytes it needs have not arrived yet. A 5-byte header followed by a 200-byte body that
 * arrived in one TCP segment is read with no wait at all, however many calls read it. In
 * continuation mode these static methods are rewritten along with the caller's code (their
 * package is always rewritten), so they suspend like the caller's own reads.
 *
 * <p>Memory follows the bytes received, never a length the peer claims: a frame's buffer grows
 * as its bytes arrive, at most doubling per step, so a peer that claims 1 GiB and sends 10 bytes
 * makes the reader hold a few hundred bytes, not 1 GiB. Every variable-length read takes a
 * limit, and a claimed length over it is refused before anything is allocated.
 *
 * <p>Writes are buffered like {@link Transport#write(byte[])}: nothing is sent until
 * {@link Transport#flush()}.
 */
public final class Binary {
  /** The first buffer a frame read allocates when the reused one is too small. */
  static final int FIRST_STEP = 256;

  private Binary() {}

  // ---- numbers ----

  /**
   * Reads one byte as an unsigned value.
   *
   * @param transport where to read from
   * @return the byte, 0 to 255
   * @throws EOFException if the stream ends first
   * @throws IOException if the read times out or the transport fails
   */
  public static int readUnsignedByte(Transport transport) throws IOException {
    byte[] b = new byte[1];
    transport.readFully(b, 0, 1);
    return b[0] & 0xff;
  }

  /**
   * Reads a big-endian 16-bit signed integer.
   *
   * @param transport where to read from
   * @return the value
   * @throws EOFException if the stream ends before its 2 bytes
   * @throws IOException if the read times out or the transport fails
   */
  public static short readShort(Transport transport) throws IOException {
    byte[] b = new byte[2];
    transport.readFully(b, 0, 2);
    return (short) ((b[0] & 0xff) << 8 | b[1] & 0xff);
  }

  /**
   * Reads a big-endian 32-bit signed integer.
   *
   * @param transport where to read from
   * @return the value
   * @throws EOFException if the stream ends before its 4 bytes
   * @throws IOException if the read times out or the transport fails
   */
  public static int readInt(Transport transport) throws IOException {
    byte[] b = new byte[4];
    transport.readFully(b, 0, 4);
    return getInt(b, 0);
  }

  /**
   * Reads a big-endian 64-bit signed integer.
   *
   * @param transport where to read from
   * @return the value
   * @throws EOFException if the stream ends before its 8 bytes
   * @throws IOException if the read times out or the transport fails
   */
  public static long readLong(Transport transport) throws IOException {
    byte[] b = new byte[8];
    transport.readFully(b, 0, 8);
    return (long) getInt(b, 0) << 32 | getInt(b, 4) & 0xffffffffL;
  }

  /**
   * Buffers one byte, the low 8 bits of {@code value}.
   *
   * @param transport where to write
   * @param value the byte
   * @throws IOException if the transport is closed or has failed
   */
  public static void writeByte(Transport transport, int value) throws IOException {
    transport.write(new byte[] {(byte) value}, 0, 1);
  }

  /**
   * Buffers the low 16 bits of {@code value}, big-endian.
   *
   * @param transport where to write
   * @param value the value
   * @throws IOException if the transport is closed or has failed
   */
  public static void writeShort(Transport transport, int value) throws IOException {
    transport.write(new byte[] {(byte) (value >>> 8), (byte) value}, 0, 2);
  }

  /**
   * Buffers {@code value}, big-endian.
   *
   * @param transport where to write
   * @param value the value
   * @throws IOException if the transport is closed or has failed
   */
  public static void writeInt(Transport transport, int value) throws IOException {
    byte[] b = new byte[4];
    putInt(b, 0, value);
    transport.write(b, 0, 4);
  }

  /**
   * Buffers {@code value}, big-endian.
   *
   * @param transport where to write
   * @param value the value
   * @throws IOException if the transport is closed or has failed
   */
  public static void writeLong(Transport transport, long value) throws IOException {
    byte[] b = new byte[8];
    putInt(b, 0, (int) (value >>> 32));
    putInt(b, 4, (int) value);
    transport.write(b, 0, 8);
  }

  // ---- frames ----

  /**
   * Reads exactly {@code length} bytes into a buffer: {@code reuse} when its capacity is enough,
   * otherwise a larger one grown as the bytes arrive (never to more than twice what has arrived,
   * and never past {@code length}). Returns the buffer holding the bytes, positioned at 0 with its
   * limit at {@code length}, big-endian; keep it and pass it back next time to read without
   * allocating.
   *
   * @param transport where to read from
   * @param reuse a buffer to read into if large enough; may be null
   * @param length how many bytes to read, as the peer said
   * @param limit the most bytes accepted; a larger {@code length} is refused before any read
   * @return the buffer holding the bytes: {@code reuse} or a new one
   * @throws ProtocolViolationException if {@code length} is negative or over {@code limit},
   *     before anything is read or allocated
   * @throws EOFException if the stream ends first, saying how many of the bytes came
   * @throws IOException if a read times out or the transport fails
   * @throws IllegalArgumentException if {@code limit < 0}
   */
  public static ByteBuffer readBody(Transport transport, ByteBuffer reuse, int length, int limit)
      throws IOException {
    if (limit < 0) {
      throw new IllegalArgumentException("limit < 0: " + limit);
    }
    if (length < 0) {
      throw new ProtocolViolationException("negative frame length: " + length);
    }
    if (length > limit) {
      throw new ProtocolViolationException("frame length " + length + " over the limit of " + limit + " bytes");
    }
    ByteBuffer buffer = reuse != null && reuse.hasArray() && reuse.capacity() >= length ? reuse
        : ByteBuffer.allocate(Math.min(length, FIRST_STEP));
    byte[] bytes = buffer.array();
    int base = buffer.arrayOffset();
    int done = 0;
    while (done < length) {
      if (done == buffer.capacity()) {
        // Grow only once what the last buffer held has arrived: memory follows the bytes.
        ByteBuffer bigger = ByteBuffer.allocate((int) Math.min(length, 2L * buffer.capacity()));
        System.arraycopy(bytes, base, bigger.array(), 0, done);
        buffer = bigger;
        bytes = bigger.array();
        base = 0;
      }
      int n = transport.read(bytes, base + done, Math.min(buffer.capacity(), length) - done);
      if (n < 0) {
        throw new EOFException("end of stream after " + done + " of a " + length + "-byte frame");
      }
      done += n;
    }
    buffer.clear();
    buffer.limit(length);
    return buffer;
  }

  /**
   * Reads a frame that is a big-endian 32-bit length (counting the body only) followed by that
   * many bytes, as {@link #readBody} reads them.
   *
   * @param transport where to read from
   * @param reuse a buffer to read the body into if large enough; may be null
   * @param limit the most body bytes accepted
   * @return the buffer holding the body: {@code reuse} or a new one
   * @throws ProtocolViolationException if the length is negative or over {@code limit}
   * @throws EOFException if the stream ends first
   * @throws IOException if a read times out or the transport fails
   */
  public static ByteBuffer readFrame(Transport transport, ByteBuffer reuse, int limit) throws IOException {
    if (limit < 0) {
      throw new IllegalArgumentException("limit < 0: " + limit);
    }
    return readBody(transport, reuse, readInt(transport), limit);
  }

  /**
   * Buffers a frame as {@link #readFrame} reads it: the big-endian 32-bit length of
   * {@code body}'s remaining bytes, then those bytes. {@code body}'s position is not moved.
   *
   * @param transport where to write
   * @param body the frame's body, from its position to its limit
   * @throws IOException if the transport is closed or has failed
   */
  public static void writeFrame(Transport transport, ByteBuffer body) throws IOException {
    writeInt(transport, body.remaining());
    writeRemaining(transport, body);
  }

  /**
   * Buffers {@code body}'s remaining bytes (position to limit) without moving its position.
   *
   * @param transport where to write
   * @param body the bytes
   * @throws IOException if the transport is closed or has failed
   */
  public static void writeRemaining(Transport transport, ByteBuffer body) throws IOException {
    if (body.hasArray()) {
      transport.write(body.array(), body.arrayOffset() + body.position(), body.remaining());
    } else {
      byte[] copy = new byte[body.remaining()];
      body.duplicate().get(copy);
      transport.write(copy, 0, copy.length);
    }
  }

  // ---- C strings ----

  /**
   * Reads a NUL-terminated string of at most {@code limit} bytes (without its NUL) from the
   * transport and decodes it as UTF-8. Grows its buffer as bytes arrive.
   *
   * @param transport where to read from
   * @param limit the most bytes the string may take, without its NUL
   * @return the string, without its NUL
   * @throws ProtocolViolationException if no NUL comes within {@code limit + 1} bytes, quoting
   *     the start
   * @throws EOFException if the stream ends before the NUL
   * @throws IOException if a read times out or the transport fails
   */
  public static String readCString(Transport transport, int limit) throws IOException {
    if (limit < 0) {
      throw new IllegalArgumentException("limit < 0: " + limit);
    }
    byte[] bytes = new byte[(int) Math.min(limit + 1L, 64)];
    byte[] one = new byte[1];
    int length = 0;
    for (;;) {
      transport.readFully(one, 0, 1);
      if (one[0] == 0) {
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
      }
      if (length == limit) {
        throw new ProtocolViolationException("C string over the limit of " + limit + " bytes: "
            + ProtocolViolationException.quote(bytes, 0, length));
      }
      if (length == bytes.length) {
        bytes = java.util.Arrays.copyOf(bytes, (int) Math.min(limit, 2L * bytes.length));
      }
      bytes[length++] = one[0];
    }
  }

  /**
   * Takes a NUL-terminated string of at most {@code limit} bytes (without its NUL) from
   * {@code buffer} at its position, decodes it as UTF-8 and moves the position past the NUL.
   *
   * @param buffer a frame's body, as {@link #readBody} returns it
   * @param limit the most bytes the string may take, without its NUL
   * @return the string, without its NUL
   * @throws ProtocolViolationException if no NUL comes within {@code limit + 1} bytes or before
   *     the buffer's limit; the position is then unchanged
   */
  public static String getCString(ByteBuffer buffer, int limit) throws ProtocolViolationException {
    if (limit < 0) {
      throw new IllegalArgumentException("limit < 0: " + limit);
    }
    int start = buffer.position();
    int end = (int) Math.min(buffer.limit(), start + (long) limit + 1);
    for (int i = start; i < end; i++) {
      if (buffer.get(i) == 0) {
        byte[] bytes = new byte[i - start];
        buffer.get(bytes);
        buffer.get();
        return new String(bytes, StandardCharsets.UTF_8);
      }
    }
    byte[] seen = new byte[Math.min(end - start, ProtocolViolationException.QUOTE_LIMIT + 1)];
    buffer.duplicate().get(seen);
    throw new ProtocolViolationException((end - start > limit ? "C string over the limit of " + limit + " bytes: "
        : "C string without its NUL: ") + ProtocolViolationException.quote(seen));
  }

  /**
   * Buffers {@code text} encoded as UTF-8 and a NUL. The text must not contain NUL itself.
   *
   * @param transport where to write
   * @param text the string
   * @throws IllegalArgumentException if {@code text} contains a NUL character
   * @throws IOException if the transport is closed or has failed
   */
  public static void writeCString(Transport transport, String text) throws IOException {
    byte[] bytes = cString(text);
    transport.write(bytes, 0, bytes.length);
  }

  /**
   * {@code text} encoded as UTF-8 followed by a NUL, for building a frame in memory.
   *
   * @param text the string
   * @return its bytes and a NUL
   * @throws IllegalArgumentException if {@code text} contains a NUL character
   */
  public static byte[] cString(String text) {
    if (text.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("a C string cannot hold NUL: " + ProtocolViolationException.quote(text));
    }
    byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
    byte[] bytes = new byte[utf8.length + 1];
    System.arraycopy(utf8, 0, bytes, 0, utf8.length);
    return bytes;
  }

  private static int getInt(byte[] b, int i) {
    return (b[i] & 0xff) << 24 | (b[i + 1] & 0xff) << 16 | (b[i + 2] & 0xff) << 8 | b[i + 3] & 0xff;
  }

  private static void putInt(byte[] b, int i, int v) {
    b[i] = (byte) (v >>> 24);
    b[i + 1] = (byte) (v >>> 16);
    b[i + 2] = (byte) (v >>> 8);
    b[i + 3] = (byte) v;
  }
}
