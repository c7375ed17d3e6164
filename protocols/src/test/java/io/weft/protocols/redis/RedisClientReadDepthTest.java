package io.weft.protocols.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.protocols.internal.Wire;
import io.weft.testsupport.InMemoryTransport;
import io.weft.transport.LineParser;
import io.weft.transport.LineParsing;
import io.weft.transport.TlsSettings;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.io.IOException;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.Test;

/**
 * How deep in the client each transport call of a round trip is made: the client's frames between
 * the caller and the transport. In continuation mode every one of them is a rewritten frame that a
 * read which suspends captures and restores, and that costs its per-method bookkeeping on every
 * call, so a call writes from itself and reads the common replies from two frames: the call and the
 * value's parser.
 */
class RedisClientReadDepthTest {

  /**
   * A transport over an in-memory script that records the client's frames at each read; it offers
   * no {@link LineParsing}, so the client reads its lines with {@code readLineStrict}.
   */
  private static class Recording implements Transport {
    final InMemoryTransport in;
    /** Each transport call's client frames, outermost first, as "readLineStrict: callLong > readValue". */
    final Set<String> reads = new LinkedHashSet<>();

    Recording(String script) {
      in = InMemoryTransport.of(script);
    }

    void record(String read) {
      List<String> frames = StackWalker.getInstance().walk(s -> s
          .filter(f -> f.getClassName().equals(RedisClient.class.getName())
              || f.getClassName().equals(Wire.class.getName()))
          .map(f -> f.getClassName().equals(Wire.class.getName()) ? "Wire." + f.getMethodName() : f.getMethodName())
          .collect(Collectors.toCollection(ArrayList::new)));
      Collections.reverse(frames);
      reads.add(read + ": " + String.join(" > ", frames));
    }

    @Override
    public String readLine(int limit) throws IOException {
      record("readLine");
      return in.readLine(limit);
    }

    @Override
    public String readLine(int limit, Charset charset) throws IOException {
      record("readLine");
      return in.readLine(limit, charset);
    }

    @Override
    public String readLineStrict(int limit) throws IOException {
      record("readLineStrict");
      return in.readLineStrict(limit);
    }

    @Override
    public String readLineStrict(int limit, Charset charset) throws IOException {
      record("readLineStrict");
      return in.readLineStrict(limit, charset);
    }

    @Override
    public void readFully(byte[] dst, int offset, int length) throws IOException {
      record("readFully");
      in.readFully(dst, offset, length);
    }

    @Override
    public byte[] readBytes(int byteCount) throws IOException {
      record("readBytes");
      return in.readBytes(byteCount);
    }

    @Override
    public int read(byte[] dst, int offset, int length) throws IOException {
      record("read");
      return in.read(dst, offset, length);
    }

    @Override
    public void write(byte[] src, int offset, int length) throws IOException {
      record("write");
      in.write(src, offset, length);
    }

    @Override
    public void write(byte[] src) throws IOException {
      in.write(src);
    }

    @Override
    public void write(String text) throws IOException {
      in.write(text);
    }

    @Override
    public void write(String text, Charset charset) throws IOException {
      in.write(text, charset);
    }

    @Override
    public void writeLine(String line) throws IOException {
      in.writeLine(line);
    }

    @Override
    public void flush() throws IOException {
      record("flush");
      in.flush();
    }

    @Override
    public void startTls(TlsSettings settings) throws IOException {
      in.startTls(settings);
    }

    @Override
    public Optional<SSLSession> tlsSession() {
      return in.tlsSession();
    }

    @Override
    public Timeout timeout() {
      return in.timeout();
    }

    @Override
    public void timeout(Timeout timeout) {
      in.timeout(timeout);
    }

    @Override
    public boolean isOpen() {
      return in.isOpen();
    }

    @Override
    public void close() {
      in.close();
    }
  }

  /** A recording transport that offers {@link LineParsing}, as the library's transports do. */
  private static final class RecordingLines extends Recording implements LineParsing {
    RecordingLines(String script) {
      super(script);
    }

    @Override
    public <T> T parseLine(int limit, LineParser<T> parser) throws IOException {
      record("parseLine");
      return in.parseLine(limit, parser);
    }
  }

  /** Sends INCR and LRANGE in one flush and reads their replies, :1 and [ab]. */
  private static void incrAndLrangePipelined(RedisClient client) throws IOException {
    client.send("INCR", "n");
    client.send("LRANGE", "l", "0", "-1");
    client.flush();
    assertEquals(1L, client.readReply());
    List<?> elements = (List<?>) client.readReply();
    assertArrayEquals("ab".getBytes(UTF_8), (byte[]) elements.get(0));
  }

  @Test
  void overALineParsingTransportTheRepliesAreParsedFromTheCallAndTheValueParser() throws Exception {
    RecordingLines transport = new RecordingLines(":42\r\n+OK\r\n:1\r\n*1\r\n$2\r\nab\r\n");
    RedisClient client = new RedisClient(transport);
    assertEquals(42L, client.callLong("INCR", "n"));
    assertEquals("OK", client.call("SET", "k", "v"));
    incrAndLrangePipelined(client);
    assertEquals(List.of("write: callLong", "flush: callLong", "parseLine: callLong > readValue",
            "write: call", "flush: call", "parseLine: call > readValue",
            "write: send", "flush: flush", "parseLine: readReply > readValue",
            "parseLine: readReply > readValue > readArray > readValue",
            "read: readReply > readValue > readArray > readValue > readBulk"),
        List.copyOf(transport.reads));
  }

  @Test
  void anIntegerCallWritesFromTheCallAndReadsFromTheCallAndTheValueParser() throws Exception {
    Recording transport = new Recording(":42\r\n");
    assertEquals(42L, new RedisClient(transport).callLong("INCR", "n"));
    assertEquals(List.of("write: callLong", "flush: callLong", "readLineStrict: callLong > readValue"),
        List.copyOf(transport.reads));
  }

  @Test
  void aStatusReplyIsReadFromTheCallAndTheValueParser() throws Exception {
    Recording transport = new Recording("+OK\r\n+PONG\r\n");
    RedisClient client = new RedisClient(transport);
    assertEquals("OK", client.call("SET", "k", "v"));
    assertEquals("PONG", client.callString("PING"));
    assertEquals(List.of("write: call", "flush: call", "readLineStrict: call > readValue",
            "write: callString", "flush: callString", "readLineStrict: callString > readValue"),
        List.copyOf(transport.reads));
  }

  @Test
  void aBulkReplysBodyAndItsCrlfAreReadFromTheBulkParser() throws Exception {
    Recording transport = new Recording("$5\r\nhello\r\n");
    assertEquals("hello", new RedisClient(transport).callString("GET", "k"));
    assertEquals(List.of("write: callString", "flush: callString", "readLineStrict: callString > readValue",
            "read: callString > readValue > readBulk"),
        List.copyOf(transport.reads));
  }

  @Test
  void pipelinedRepliesAndAnArraysElementsAreOneFrameDeeperEach() throws Exception {
    Recording transport = new Recording(":1\r\n*1\r\n$2\r\nab\r\n");
    RedisClient client = new RedisClient(transport);
    incrAndLrangePipelined(client);
    assertEquals(List.of("write: send", "flush: flush", "readLineStrict: readReply > readValue",
            "readLineStrict: readReply > readValue > readArray > readValue",
            "read: readReply > readValue > readArray > readValue > readBulk"),
        List.copyOf(transport.reads));
  }

  @Test
  void aPipelinesRepliesAreReadFromThePipelineAndTheValueParser() throws Exception {
    Recording transport = new Recording(":1\r\n:2\r\n");
    List<String[]> commands = List.of(new String[] {"INCR", "n"}, new String[] {"INCR", "n"});
    assertEquals(List.of(1L, 2L), new RedisClient(transport).pipeline(commands));
    assertEquals(List.of("write: pipeline > send", "flush: pipeline", "readLineStrict: pipeline > readValue"),
        List.copyOf(transport.reads));
  }
}
