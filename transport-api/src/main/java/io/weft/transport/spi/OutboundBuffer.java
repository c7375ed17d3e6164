package io.weft.transport.spi;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/** The bytes a transport has been given to write and has not sent yet. Not thread-safe. */
public final class OutboundBuffer {
  /**
   * Buffered bytes at which a transport sends without waiting for a flush, so that a writer that
   * never flushes cannot grow the buffer without bound. See {@link #shouldSend()}.
   */
  public static final int SEND_AT_BYTES = 64 * 1024;

  private static final byte[] CRLF = {'\r', '\n'};

  private byte[] data;
  private int size;

  /**
   * An empty buffer; it grows as needed (doubling), so the capacity only sets where it starts.
   *
   * @param initialCapacity the array's first length, in bytes
   * @throws NegativeArraySizeException if {@code initialCapacity < 0}
   */
  public OutboundBuffer(int initialCapacity) {
    data = new byte[initialCapacity];
  }

  /**
   * Bytes buffered now.
   *
   * @return the count, 0 when empty
   */
  public int size() {
    return size;
  }

  /**
   * The buffer's own array, not a copy, for a send that writes it out without copying: its first
   * {@link #size()} bytes are what is buffered. Valid until the next append (which may replace
   * it) or {@link #clear()}.
   *
   * @return the backing array
   */
  public byte[] array() {
    return data;
  }

  /**
   * Appends {@code len} bytes of {@code src} from {@code off}.
   *
   * @param src the bytes
   * @param off where in {@code src} they start
   * @param len how many
   * @throws IndexOutOfBoundsException if the range is not inside {@code src}
   * @throws OutOfMemoryError if the buffer would pass 2 GiB
   */
  public void append(byte[] src, int off, int len) {
    java.util.Objects.checkFromIndexSize(off, len, src.length);
    ensure(len);
    System.arraycopy(src, off, data, size, len);
    size += len;
  }

  /**
   * Appends {@code text} encoded in {@code charset}; ASCII text in UTF-8 or US-ASCII goes in
   * without an intermediate array.
   *
   * @param text the text, with no line end added
   * @param charset its encoding
   */
  public void append(String text, Charset charset) {
    if (charset == StandardCharsets.UTF_8 || charset == StandardCharsets.US_ASCII) {
      if (appendAscii(text)) {
        return;
      }
    }
    byte[] bytes = text.getBytes(charset);
    append(bytes, 0, bytes.length);
  }

  private void appendCrlf() {
    append(CRLF, 0, 2);
  }

  /**
   * Appends {@code line} as UTF-8 and CRLF, as {@code Transport.writeLine} sends it.
   *
   * @param line the line, without its end
   */
  public void appendLine(String line) {
    append(line, StandardCharsets.UTF_8);
    appendCrlf();
  }

  /**
   * Whether the transport should send now, without waiting for a flush.
   *
   * @return true once {@link #SEND_AT_BYTES} or more are buffered
   */
  public boolean shouldSend() {
    return size >= SEND_AT_BYTES;
  }

  /**
   * Copies out and clears what is buffered.
   *
   * @return a new array of exactly {@link #size()} bytes (empty when nothing is buffered)
   */
  public byte[] take() {
    byte[] out = java.util.Arrays.copyOf(data, size);
    size = 0;
    return out;
  }

  /** Empties the buffer once its bytes are sent; keeps the array, for the next writes. */
  public void clear() {
    size = 0;
  }

  /** The common case, pure ASCII, without an intermediate array. */
  private boolean appendAscii(String text) {
    int n = text.length();
    for (int i = 0; i < n; i++) {
      if (text.charAt(i) >= 0x80) {
        return false;
      }
    }
    ensure(n);
    for (int i = 0; i < n; i++) {
      data[size + i] = (byte) text.charAt(i);
    }
    size += n;
    return true;
  }

  private void ensure(int n) {
    if (data.length - size < n) {
      long wanted = Math.max((long) size + n, (long) data.length * 2);
      if (wanted > Integer.MAX_VALUE - 8) {
        throw new OutOfMemoryError("outbound buffer over 2 GiB");
      }
      data = java.util.Arrays.copyOf(data, (int) wanted);
    }
  }
}
