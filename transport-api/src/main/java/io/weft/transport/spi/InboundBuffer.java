package io.weft.transport.spi;

import io.weft.transport.LineParser;
import io.weft.transport.LineTooLongException;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.TlsRequiredException;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.util.Arrays;

/**
 * The non-blocking core every transport reads through: bytes go in at the tail as they arrive,
 * the {@code poll*} methods take a line or a run of bytes off the head if enough is there.
 * Each {@code poll*} either completes, or returns its "need more" answer without consuming
 * anything (see {@link Inbound}), so the caller can wait (block, or suspend a continuation) and
 * try again.
 *
 * <p>Keeping this free of waiting is what lets the continuation transport share it: nothing
 * here is ever on a suspended stack.
 *
 * <p>On a plaintext session the transport also has it {@linkplain #expectPlaintextFrom watch the
 * start of the stream}: a TLS server answering a client that did not start TLS sends a TLS alert
 * record, and the first {@code poll*} that sees one throws {@link TlsRequiredException} instead
 * of handing the record's bytes out as data. Every transport reads through here, so every
 * transport and mode reports it the same way.
 *
 * <p>Not thread-safe; transports that fill it from an I/O thread guard it themselves.
 */
public final class InboundBuffer implements Inbound {
  /** Above this capacity an emptied buffer gives its array back: one large read is not kept. */
  private static final int KEEP_AT_MOST = 64 * 1024;

  private final int initialCapacity;
  private byte[] data;
  /** A heap buffer over {@link #data}, for {@link #append(ByteBuffer)}; null until needed and whenever data is replaced. */
  private ByteBuffer dataView;
  private int head;
  private int tail;
  private boolean eof;
  /** Bytes from head that are known to hold no LF; saves rescanning on slow delivery. */
  private int scanned;
  /** True once any byte has been taken: the start of the stream is gone. */
  private boolean consumedAny;
  /** True while the start of the stream is watched for a TLS alert. */
  private boolean watchingStart;
  /**
   * The peer while the start is watched, named only in the message of an alert found there: a
   * session that never meets one never formats its address.
   */
  private SocketAddress plaintextPeer;
  /** Bytes the last {@link #reserve} set aside at the tail and no commit, append or take has used since. */
  private int reserved;
  /**
   * True while a {@link LineParser} runs on a line in {@link #data}: a poll then (the parser reading
   * from its transport) is refused, since it could move the bytes under the parser's view.
   */
  private boolean parsing;

  /**
   * An empty buffer, not watching for a TLS alert. It grows as bytes arrive, and goes back to
   * {@code initialCapacity} on {@link #clear()}, or when a take drains a much grown array.
   *
   * @param initialCapacity the array's first length, in bytes
   * @throws IllegalArgumentException if {@code initialCapacity <= 0}
   */
  public InboundBuffer(int initialCapacity) {
    if (initialCapacity <= 0) {
      throw new IllegalArgumentException("initialCapacity <= 0: " + initialCapacity);
    }
    this.initialCapacity = initialCapacity;
    data = new byte[initialCapacity];
  }

  /**
   * Watches the start of the stream for a TLS alert record from {@code peer}: for a plaintext
   * session, before anything has been read. The first {@code poll*} that finds the stream
   * starting with exactly an alert record's seven bytes throws {@link TlsRequiredException}
   * naming {@code peer} and the alert. The watch ends, for good, as soon as the first bytes
   * cannot be one, or any byte is taken, or {@link #stopExpectingPlaintext()} is called. While
   * the first bytes could still become an alert (fewer than seven, each fitting its shape), no
   * poll hands them out: it answers "need more" until the next byte decides, or the stream ends
   * (then they are data). So an alert is reported the same way however its bytes were split in
   * arrival, on every transport; the price is that a stream starting with such a prefix, such as
   * a lone {@code 0x15}, is not handed out until a byte more, or the end, arrives. Does nothing
   * once a byte has been taken.
   *
   * @param peer the peer's address, named in the exception
   */
  public void expectPlaintextFrom(SocketAddress peer) {
    if (!consumedAny) {
      watchingStart = true;
      plaintextPeer = peer;
    }
  }

  /** Ends the watch {@link #expectPlaintextFrom} started: from here the session speaks TLS. */
  public void stopExpectingPlaintext() {
    watchingStart = false;
    plaintextPeer = null;
  }

  /**
   * Bytes buffered and not yet taken.
   *
   * @return the count, 0 when empty
   */
  public int size() {
    return tail - head;
  }

  /**
   * For a timeout's message: how many bytes arrived and are not taken yet, and the start of
   * them quoted, e.g. {@code 17 bytes read so far: "+PONG\r"}.
   *
   * @return the description; {@code "nothing read so far"} when empty
   */
  public String describeUnread() {
    int size = tail - head;
    if (size == 0) {
      return "nothing read so far";
    }
    return size + (size == 1 ? " byte" : " bytes") + " read so far: "
        + ProtocolViolationException.quote(data, head, size);
  }

  /**
   * Whether the peer has ended the stream. Buffered bytes may remain; see {@link #isDrained()}.
   *
   * @return true once {@link #markEof()} was called or {@link #readFrom} met the end
   */
  public boolean isEof() {
    return eof;
  }

  /** True once the peer has ended the stream and every byte has been taken. */
  @Override
  public boolean isDrained() {
    return eof && tail == head;
  }

  /** Records that no more bytes will arrive. */
  public void markEof() {
    eof = true;
  }

  /**
   * Appends {@code src[off..off+len)}, growing the array as needed.
   *
   * @param src the bytes received
   * @param off where in {@code src} they start
   * @param len how many
   * @throws IndexOutOfBoundsException if the range is not inside {@code src}
   * @throws OutOfMemoryError if the buffer would pass 2 GiB
   */
  public void append(byte[] src, int off, int len) {
    reserved = 0;
    ensureWritable(len);
    System.arraycopy(src, off, data, tail, len);
    tail += len;
  }

  /**
   * Appends the remaining bytes of {@code src}, consuming them (its position moves to its
   * limit).
   *
   * @param src the bytes received, from its position to its limit
   * @throws OutOfMemoryError if the buffer would pass 2 GiB
   */
  public void append(ByteBuffer src) {
    reserved = 0;
    int len = src.remaining();
    ensureWritable(len);
    if (src.hasArray()) {
      src.get(data, tail, len);
    } else {
      // From a buffer without an accessible array (a direct one: MINA's read; or a read-only
      // heap one), ByteBuffer.get(byte[]) copies up to 6 bytes one at a time, each through the
      // JDK's scoped memory access (a Redis reply line is 4 to 8 bytes); a bulk put between
      // buffers copies any length at once.
      ByteBuffer view = dataView;
      if (view == null) {
        view = ByteBuffer.wrap(data);
        dataView = view;
      }
      view.put(tail, src, src.position(), len);
      src.position(src.limit());
    }
    tail += len;
  }

  /**
   * Makes room at the tail for {@code len} bytes that have arrived and returns where they go in
   * {@link #array()}: for a transport that copies received bytes straight from its library's
   * buffer (a Netty {@code ByteBuf}) into this buffer, with no array of its own in between. Copy
   * them there, then {@link #commit(int)} them; nothing is buffered until then. The array grows as
   * {@link #append(byte[], int, int)} grows it: to the bytes buffered and reserved, or to twice its
   * length, whichever is more. Any append, take or clear before the commit ends the reservation.
   *
   * @param len how many bytes will be copied in
   * @return the index in {@link #array()} where the first of them goes
   * @throws IllegalArgumentException if {@code len < 0}
   * @throws OutOfMemoryError if the buffer would pass 2 GiB
   */
  public int reserve(int len) {
    if (len < 0) {
      throw new IllegalArgumentException("len < 0: " + len);
    }
    ensureWritable(len);
    reserved = len;
    return tail;
  }

  /**
   * The array that {@link #reserve(int)} made room in; valid until the next call that appends,
   * takes or clears.
   *
   * @return this buffer's array
   */
  public byte[] array() {
    return data;
  }

  /**
   * Buffers the {@code len} bytes copied into {@link #array()} at the index {@link #reserve(int)}
   * returned.
   *
   * @param len how many bytes were copied in, at most what was reserved
   * @throws IndexOutOfBoundsException if {@code len} is negative or more than the last
   *     {@link #reserve(int)} set aside (nothing is reserved after a commit, append, take or clear)
   */
  public void commit(int len) {
    if (len < 0 || len > reserved) {
      throw new IndexOutOfBoundsException("commit " + len + " with " + reserved + " reserved");
    }
    tail += len;
    reserved = 0;
  }

  /**
   * Reads once from {@code in} into this buffer, at most {@code maxBytes}. Returns the bytes
   * read, or -1 (and marks end of stream) when {@code in} is at its end. Blocks as
   * {@code in.read} does, so only a blocking transport's reading thread calls it; room for
   * {@code maxBytes} is made before the read.
   *
   * @param in the stream to read from (a socket's)
   * @param maxBytes the most bytes to read at once
   * @return the bytes read, or -1 at end of stream
   * @throws IOException what {@code in.read} threw (a {@link java.net.SocketTimeoutException}
   *     when its socket's timeout passed)
   */
  public int readFrom(InputStream in, int maxBytes) throws IOException {
    reserved = 0;
    ensureWritable(maxBytes);
    int n = in.read(data, tail, maxBytes);
    if (n < 0) {
      eof = true;
      return -1;
    }
    tail += n;
    return n;
  }

  /**
   * Takes a line off the head if a whole one is buffered. {@code null} means "need more" exactly
   * when the stream has not ended ({@link #isEof()} false); after its end, a lenient poll's
   * {@code null} is the clean end of stream.
   *
   * @return the line without its terminator; or {@code null} when more input is needed or, when
   *     not {@code strict}, at a clean end of stream
   * @throws LineTooLongException once {@code limit} bytes have arrived without a line end
   * @throws EOFException when {@code strict} and the stream ended before a line end
   * @throws TlsRequiredException when the plaintext stream starts with a TLS alert record
   */
  @Override
  public String pollLine(int limit, boolean strict, Charset charset) throws IOException {
    checkNotParsing();
    int lf = findLine(limit, strict);
    if (lf >= 0) {
      int length = lineLength(lf);
      String line = new String(data, head, length, charset);
      consume(lf + 1 - head);
      return line;
    }
    if (lf == NO_LINE) {
      return null;
    }
    // Lenient, at the end of the stream: the partial line.
    int size = tail - head;
    String line = new String(data, head, size, charset);
    consume(size);
    return line;
  }

  /**
   * As a strict {@link #pollLine}, handing the line's bytes, where they lie in this buffer, to
   * {@code parser}: the line is consumed first, and the parser reads it before anything can be
   * appended (this buffer's reader, or its owner's lock, is the parser's caller).
   *
   * @return what the parser returned, or {@link Inbound#NO_LINE_YET} when more input is needed
   * @throws LineTooLongException once {@code limit} bytes have arrived without a line end
   * @throws EOFException when the stream ended before a line end
   * @throws TlsRequiredException when the plaintext stream starts with a TLS alert record
   * @throws ParsedLineFailure carrying what the parser threw
   */
  @Override
  public Object pollLine(int limit, LineParser<?> parser) throws IOException {
    checkNotParsing();
    int lf = findLine(limit, true);
    if (lf < 0) {
      return NO_LINE_YET;
    }
    int length = lineLength(lf);
    // consume may start over at index 0 or replace the array; the bytes stay where they are in
    // this one until the next append (none while the parser runs: see parsing).
    byte[] bytes = data;
    int start = head;
    consume(lf + 1 - head);
    parsing = true;
    try {
      return ParsedLineFailure.parse(parser, bytes, start, length);
    } finally {
      parsing = false;
    }
  }

  /**
   * Refuses a poll made from inside a {@link LineParser} on this buffer's line: the parser called
   * its transport, which {@link LineParser} forbids (an append for that read could move the
   * bytes under its view; under MINA's and Netty's lock, its wait would hold the I/O thread).
   */
  private void checkNotParsing() {
    if (parsing) {
      throw new IllegalStateException("a LineParser called the transport whose line it parses: a parser "
          + "must not read from its transport (parseLine's line is valid only during the parse)");
    }
  }

  /** findLine's answer when more input is needed, or at a lenient clean end of stream. */
  private static final int NO_LINE = -1;
  /** findLine's answer at a lenient end of stream with a partial line of at most the limit left. */
  private static final int PARTIAL_LINE = -2;

  /**
   * Finds the LF ending the line at the head: its index, or {@link #NO_LINE}, or (lenient)
   * {@link #PARTIAL_LINE}; throws as {@link #pollLine} does.
   */
  private int findLine(int limit, boolean strict) throws IOException {
    if (limit < 0) {
      throw new IllegalArgumentException("limit < 0: " + limit);
    }
    // An undecided start holds no LF (see checkStart), so the scan below finds no line in it.
    checkStart();
    int size = tail - head;
    // A line of `limit` bytes needs up to limit + 2 bytes with its CRLF; look no further.
    long window = Math.min((long) size, (long) limit + 2L);
    int lf = -1;
    for (int i = head + scanned; i < head + window; i++) {
      if (data[i] == '\n') {
        lf = i;
        break;
      }
    }
    if (lf >= 0) {
      if (lineLength(lf) > limit) {
        throw tooLong(limit);
      }
      return lf;
    }
    if (window == (long) limit + 2L || (size == limit + 1 && data[head + limit] != '\r')) {
      throw tooLong(limit);
    }
    scanned = (int) window;
    if (!eof) {
      return NO_LINE;
    }
    if (size == 0) {
      if (strict) {
        throw new EOFException("end of stream: expected a line");
      }
      return NO_LINE;
    }
    if (strict) {
      throw new EOFException("end of stream inside a line after " + size + " bytes: "
          + ProtocolViolationException.quote(data, head, size));
    }
    if (size > limit) {
      throw tooLong(limit);
    }
    return PARTIAL_LINE;
  }

  /** The length of the line at the head ending at the LF at {@code lf}, without its CR if any. */
  private int lineLength(int lf) {
    int end = (lf > head && data[lf - 1] == '\r') ? lf - 1 : lf;
    return end - head;
  }

  /**
   * Copies exactly {@code len} bytes into {@code dst} if that many are buffered.
   *
   * @return true if done; false if more input is needed
   * @throws EOFException when the stream ended with fewer than {@code len} bytes buffered
   * @throws TlsRequiredException when the plaintext stream starts with a TLS alert record
   */
  @Override
  public boolean pollFully(byte[] dst, int off, int len) throws EOFException, TlsRequiredException {
    checkNotParsing();
    if (checkStart()) {
      return false;
    }
    int size = tail - head;
    if (size >= len) {
      System.arraycopy(data, head, dst, off, len);
      consume(len);
      return true;
    }
    if (eof) {
      throw new EOFException("end of stream after " + size + " of " + len + " bytes");
    }
    return false;
  }

  /**
   * Copies up to {@code len} buffered bytes into {@code dst}.
   *
   * @return bytes copied (at least 1 when {@code len > 0}); -1 at end of stream;
   *     {@link #NO_BYTES_YET} when more input is needed
   * @throws TlsRequiredException when the plaintext stream starts with a TLS alert record
   */
  @Override
  public int poll(byte[] dst, int off, int len) throws TlsRequiredException {
    checkNotParsing();
    if (len == 0) {
      return 0;
    }
    if (checkStart()) {
      return NO_BYTES_YET;
    }
    int size = tail - head;
    if (size > 0) {
      int n = Math.min(size, len);
      System.arraycopy(data, head, dst, off, n);
      consume(n);
      return n;
    }
    return eof ? -1 : NO_BYTES_YET;
  }

  /**
   * Takes every buffered byte at once, whatever it looks like (the TLS alert watch does not
   * apply): for a caller that refuses them, such as STARTTLS finding plaintext past the upgrade
   * point.
   *
   * @return a new array of every buffered byte (empty when nothing is buffered)
   */
  public byte[] takeAll() {
    byte[] all = Arrays.copyOfRange(data, head, tail);
    if (all.length != 0) {
      consume(all.length);
    }
    return all;
  }

  /** Discards everything buffered, and a grown array with it. */
  public void clear() {
    reserved = 0;
    head = 0;
    tail = 0;
    scanned = 0;
    if (data.length > initialCapacity) {
      replaceData(new byte[initialCapacity]);
    }
  }

  /**
   * The capacity of the array held now. For tests and diagnostics.
   *
   * @return the array's length in bytes
   */
  public int capacity() {
    return data.length;
  }

  /**
   * Throws if the watched start of the stream is a TLS alert record; ends the watch once it
   * cannot be one. True when the buffered bytes may still become one and the stream goes on: the
   * poll must then hand nothing out, so that how the record's bytes were split in arrival cannot
   * change what is reported. An alert's bytes 1 to 5 hold no LF, so an undecided start is never
   * a whole line: a line read waits for the seventh byte anyway.
   */
  private boolean checkStart() throws TlsRequiredException {
    if (!watchingStart) {
      return false;
    }
    int verdict = TlsAlertRecord.match(data, head, tail - head);
    if (verdict == TlsAlertRecord.NOT_ONE) {
      stopExpectingPlaintext();
      return false;
    }
    if (verdict != TlsAlertRecord.UNDECIDED) {
      throw TlsAlertRecord.required(TlsAlertRecord.peerName(plaintextPeer), data[head + 5], verdict);
    }
    return !eof && tail > head;
  }

  private LineTooLongException tooLong(int limit) {
    int size = tail - head;
    return new LineTooLongException(limit, ProtocolViolationException.quote(data, head, size));
  }

  private void consume(int n) {
    reserved = 0;
    consumedAny = true;
    stopExpectingPlaintext();
    head += n;
    scanned = 0;
    if (head == tail) {
      head = 0;
      tail = 0;
      if (data.length > Math.max(initialCapacity, KEEP_AT_MOST)) {
        replaceData(new byte[initialCapacity]);
      }
    }
  }

  private void ensureWritable(int n) {
    if (data.length - tail >= n) {
      return;
    }
    int size = tail - head;
    if (data.length - size >= n && head >= size) {
      System.arraycopy(data, head, data, 0, size);
    } else {
      long wanted = Math.max((long) size + n, (long) data.length * 2);
      if (wanted > Integer.MAX_VALUE - 8) {
        throw new OutOfMemoryError("inbound buffer over 2 GiB");
      }
      byte[] bigger = new byte[(int) wanted];
      System.arraycopy(data, head, bigger, 0, size);
      replaceData(bigger);
    }
    tail = size;
    head = 0;
  }

  /** Holds {@code array} from now on, and no view of the one before: a dropped array is not kept. */
  private void replaceData(byte[] array) {
    data = array;
    dataView = null;
  }

  @Override
  public String toString() {
    return "InboundBuffer{size=" + size() + ", eof=" + eof + ", head="
        + ProtocolViolationException.quote(Arrays.copyOfRange(data, head, Math.min(tail, head + 16))) + "}";
  }
}
