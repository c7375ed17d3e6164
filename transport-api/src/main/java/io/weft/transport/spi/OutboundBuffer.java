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

  public OutboundBuffer(int initialCapacity) {
    data = new byte[initialCapacity];
  }

  public int size() {
    return size;
  }

  public byte[] array() {
    return data;
  }

  public void append(byte[] src, int off, int len) {
    java.util.Objects.checkFromIndexSize(off, len, src.length);
    ensure(len);
    System.arraycopy(src, off, data, size, len);
    size += len;
  }

  public void append(String text, Charset charset) {
    if (charset == StandardCharsets.UTF_8 || charset == StandardCharsets.US_ASCII) {
      if (appendAscii(text)) {
        return;
      }
    }
    byte[] bytes = text.getBytes(charset);
    append(bytes, 0, bytes.length);
  }

  public void appendCrlf() {
    append(CRLF, 0, 2);
  }

  /** Appends {@code line} as UTF-8 and CRLF, as {@code Transport.writeLine} sends it. */
  public void appendLine(String line) {
    append(line, StandardCharsets.UTF_8);
    appendCrlf();
  }

  /** True once {@link #SEND_AT_BYTES} or more are buffered: the transport should send now. */
  public boolean shouldSend() {
    return size >= SEND_AT_BYTES;
  }

  /** Copies out and clears what is buffered. */
  public byte[] take() {
    byte[] out = java.util.Arrays.copyOf(data, size);
    size = 0;
    return out;
  }

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
