package io.weft.testsupport;

import io.weft.transport.LineParser;
import io.weft.transport.LineParsing;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import io.weft.transport.TransportClosedException;
import io.weft.transport.spi.BlockingReads;
import io.weft.transport.spi.InboundBuffer;
import io.weft.transport.spi.ReadArguments;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/**
 * A {@link Transport} over bytes in memory, for protocol parser unit tests: what the client reads
 * is a script given up front, delivered whole or one byte at a time; what it writes (and
 * flushes) is recorded. No thread, socket or timer: a read that needs more than the script holds
 * ends the stream, exactly as a peer that sent the script and closed.
 *
 * <p>Line and byte reads go through the same {@link InboundBuffer} as the real transports, so the
 * edges (line limits, CRLF split across deliveries, truncation) behave as they do on a socket.
 * Lifecycle: {@link #of} or {@link #oneByteAtATime}, hand it to a client, read {@link #written()};
 * after {@link #close()} every operation throws {@link TransportClosedException}.
 */
public final class InMemoryTransport implements Transport, LineParsing {
  private final byte[] script;
  private final int chunk;
  private int delivered;
  private final InboundBuffer inbound = new InboundBuffer(64);
  private final ScriptWaiter waiter = new ScriptWaiter();
  private final BlockingReads reads = new BlockingReads(inbound, waiter);
  private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
  private final ByteArrayOutputStream flushed = new ByteArrayOutputStream();
  private Timeout timeout = Timeout.NONE;
  private boolean open = true;
  private int deliveries;

  private InMemoryTransport(byte[] script, int chunk) {
    this.script = script.clone();
    this.chunk = chunk;
  }

  /** Delivers {@code script} in one piece. */
  public static InMemoryTransport of(byte[] script) {
    return new InMemoryTransport(script, Math.max(1, script.length));
  }

  /** Delivers {@code script} (UTF-8) in one piece. */
  public static InMemoryTransport of(String script) {
    return of(script.getBytes(StandardCharsets.UTF_8));
  }

  /** Delivers {@code script} one byte per delivery, so every parser edge falls between reads. */
  public static InMemoryTransport oneByteAtATime(byte[] script) {
    return new InMemoryTransport(script, 1);
  }

  /** Delivers {@code script} (UTF-8) one byte per delivery. */
  public static InMemoryTransport oneByteAtATime(String script) {
    return oneByteAtATime(script.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Forgets what the client has written and flushed so far: a harness that measures what a client
   * allocates per reply calls it before each, or the record of a long run's requests would grow
   * (and its growth be counted) inside the measured reads.
   */
  public void forgetWritten() {
    flushed.reset();
  }

  /** What the client has written and flushed so far, as UTF-8. */
  public String written() {
    return flushed.toString(StandardCharsets.UTF_8);
  }

  /** Bytes of the script the client has not taken into its reads. */
  public int unread() {
    return script.length - delivered + inbound.size();
  }

  /** How many bytes of the script have been delivered to the reader's buffer so far: what it received. */
  public int delivered() {
    return delivered;
  }

  /** How many deliveries the reads needed (with {@link #oneByteAtATime}, one per byte read). */
  public int deliveries() {
    return deliveries;
  }

  /**
   * How the reads "wait": the next piece of the script arrives at once, or the stream ends. A
   * read fails the way the real transports' do, and leaves this transport open.
   */
  private final class ScriptWaiter implements BlockingReads.Waiter {
    @Override
    public void checkOpen() throws TransportClosedException {
      if (!open) {
        throw new TransportClosedException("transport closed");
      }
    }

    @Override
    public void awaitInput(long awaited) {
      if (delivered == script.length) {
        inbound.markEof();
        return;
      }
      int n = Math.min(chunk, script.length - delivered);
      inbound.append(script, delivered, n);
      delivered += n;
      deliveries++;
    }

    @Override
    public IOException failed(IOException e) {
      return e;
    }
  }

  @Override
  public String readLine(int limit) throws IOException {
    return reads.readLine(limit, false, StandardCharsets.UTF_8);
  }

  @Override
  public String readLine(int limit, Charset charset) throws IOException {
    return reads.readLine(limit, false, charset);
  }

  @Override
  public String readLineStrict(int limit) throws IOException {
    return reads.readLine(limit, true, StandardCharsets.UTF_8);
  }

  @Override
  public String readLineStrict(int limit, Charset charset) throws IOException {
    return reads.readLine(limit, true, charset);
  }

  @Override
  public <T> T parseLine(int limit, LineParser<T> parser) throws IOException {
    return reads.parseLine(limit, parser);
  }

  @Override
  public void readFully(byte[] dst, int offset, int length) throws IOException {
    reads.readFully(dst, offset, length);
  }

  @Override
  public byte[] readBytes(int byteCount) throws IOException {
    return reads.readFully(ReadArguments.newBytes(byteCount), 0, byteCount);
  }

  @Override
  public int read(byte[] dst, int offset, int length) throws IOException {
    return reads.read(dst, offset, length);
  }

  @Override
  public void write(byte[] src, int offset, int length) throws IOException {
    checkOpen();
    pending.write(src, offset, length);
  }

  @Override
  public void write(byte[] src) throws IOException {
    write(src, 0, src.length);
  }

  @Override
  public void write(String text) throws IOException {
    write(text, StandardCharsets.UTF_8);
  }

  @Override
  public void write(String text, Charset charset) throws IOException {
    write(text.getBytes(charset));
  }

  @Override
  public void writeLine(String line) throws IOException {
    write(line + "\r\n");
  }

  @Override
  public void flush() throws IOException {
    checkOpen();
    pending.writeTo(flushed);
    pending.reset();
  }

  /** Refused: scripted bytes have no TLS peer. */
  @Override
  public void startTls(TlsSettings settings) {
    throw new IllegalStateException("an in-memory transport has no peer that speaks TLS");
  }

  @Override
  public Optional<SSLSession> tlsSession() {
    return Optional.empty();
  }

  @Override
  public Timeout timeout() {
    return timeout;
  }

  @Override
  public void timeout(Timeout timeout) {
    if (timeout == null) {
      throw new IllegalArgumentException("timeout == null");
    }
    this.timeout = timeout;
  }

  @Override
  public boolean isOpen() {
    return open;
  }

  @Override
  public void close() {
    open = false;
  }

  private void checkOpen() throws TransportClosedException {
    waiter.checkOpen();
  }

  @Override
  public String toString() {
    return "InMemoryTransport{" + (script.length - unread()) + " of " + script.length + " bytes read"
        + (open ? "" : ", closed") + "}";
  }
}
