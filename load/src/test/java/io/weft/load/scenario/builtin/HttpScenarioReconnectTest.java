package io.weft.load.scenario.builtin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.weft.load.record.OpRecorder;
import io.weft.testsupport.InMemoryTransport;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import java.io.IOException;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.Test;

/**
 * A user of {@code http --no-keep-alive} connects anew for every request; its client for each new
 * connection starts its buffer at the size the last connection's responses fitted (halving from
 * 2 KiB towards what a response held), not at a fresh client's 2 KiB per connection: seen as the
 * length of the array each connection's first read is handed.
 */
class HttpScenarioReconnectTest {
  private static final String RESPONSE = "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Length: 17\r\n"
      + "Connection: close\r\n\r\nhello from nginx\n";

  @Test
  void aReconnectingUsersClientStartsWhereTheLastConnectionsBufferGotTo() throws Exception {
    HttpScenario scenario = new HttpScenario(Map.of("keepAlive", "false"));
    OpRecorder ops = new NoOps();
    int[] starts = new int[5];
    for (int i = 0; i < starts.length; i++) {
      InMemoryTransport connection = InMemoryTransport.of(RESPONSE);
      ReadArrays reads = new ReadArrays(connection);
      scenario.connected(reads, ops);
      scenario.iteration(ops);
      assertFalse(connection.isOpen(), "the iteration closed its connection");
      starts[i] = reads.lengths.get(0);
    }
    // A 90-byte response: 1.5 x 90 is 135, 192 rounded up to 64; the start halves at most per response.
    assertArrayEquals(new int[] {2048, 1024, 512, 256, 192}, starts);
  }

  /** Records the length of the array each read is handed, and passes every call to an {@link InMemoryTransport}. */
  private static final class ReadArrays implements Transport {
    final InMemoryTransport inner;
    final List<Integer> lengths = new ArrayList<>();

    ReadArrays(InMemoryTransport inner) {
      this.inner = inner;
    }

    @Override
    public int read(byte[] dst, int offset, int length) throws IOException {
      lengths.add(dst.length);
      return inner.read(dst, offset, length);
    }

    @Override
    public String readLine(int limit) throws IOException {
      return inner.readLine(limit);
    }

    @Override
    public String readLine(int limit, Charset charset) throws IOException {
      return inner.readLine(limit, charset);
    }

    @Override
    public String readLineStrict(int limit) throws IOException {
      return inner.readLineStrict(limit);
    }

    @Override
    public String readLineStrict(int limit, Charset charset) throws IOException {
      return inner.readLineStrict(limit, charset);
    }

    @Override
    public void readFully(byte[] dst, int offset, int length) throws IOException {
      inner.readFully(dst, offset, length);
    }

    @Override
    public byte[] readBytes(int byteCount) throws IOException {
      return inner.readBytes(byteCount);
    }

    @Override
    public void write(byte[] src, int offset, int length) throws IOException {
      inner.write(src, offset, length);
    }

    @Override
    public void write(byte[] src) throws IOException {
      inner.write(src);
    }

    @Override
    public void write(String text) throws IOException {
      inner.write(text);
    }

    @Override
    public void write(String text, Charset charset) throws IOException {
      inner.write(text, charset);
    }

    @Override
    public void writeLine(String line) throws IOException {
      inner.writeLine(line);
    }

    @Override
    public void flush() throws IOException {
      inner.flush();
    }

    @Override
    public void startTls(TlsSettings settings) throws IOException {
      inner.startTls(settings);
    }

    @Override
    public Optional<SSLSession> tlsSession() {
      return inner.tlsSession();
    }

    @Override
    public Timeout timeout() {
      return inner.timeout();
    }

    @Override
    public void timeout(Timeout timeout) {
      inner.timeout(timeout);
    }

    @Override
    public boolean isOpen() {
      return inner.isOpen();
    }

    @Override
    public void close() {
      inner.close();
    }
  }

  /** Records nothing: the test looks at the client, not the figures. */
  private static final class NoOps implements OpRecorder {
    @Override
    public Timer start(String name) {
      return () -> { };
    }

    @Override
    public long start() {
      return 0L;
    }

    @Override
    public void stop(String name, long startNanos) {
    }

    @Override
    public void error(String name, Throwable error) {
    }

    @Override
    public void error(String name, String type) {
    }
  }
}
