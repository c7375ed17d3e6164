package io.weft.protocols.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.testsupport.InMemoryTransport;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.Test;

/**
 * What an exchange asks of the transport: a response that arrived in one piece is parsed from the
 * bytes of one read (no call per header line, none for the body), and the request goes out in one
 * write and one flush. Each transport call is a rewritten call site in continuation mode and a
 * wait check in every mode, so these counts are the client's cost per exchange. Bytes past a
 * response stay for the next one.
 */
class HttpClientTransportCallsTest {
  private static final String RESPONSE = "HTTP/1.1 200 OK\r\nServer: nginx\r\nDate: Thu, 26 Nov 2026 23:59:59 GMT\r\n"
      + "Content-Type: text/html\r\nContent-Length: 17\r\nLast-Modified: Thu, 26 Nov 2026 23:00:00 GMT\r\n"
      + "Connection: keep-alive\r\nETag: \"6a3b2c1d-11\"\r\nAccept-Ranges: bytes\r\n\r\nhello from nginx\n";

  @Test
  void aResponseThatArrivedInOnePieceIsParsedFromOneRead() throws IOException {
    Counting transport = new Counting(InMemoryTransport.of(RESPONSE));
    HttpResponse response = new HttpClient(transport, "localhost").get("/");
    assertEquals(200, response.status());
    assertEquals(8, response.headers().size());
    assertArrayEquals("hello from nginx\n".getBytes(StandardCharsets.US_ASCII), response.body());
    assertEquals(1, transport.reads, "transport reads for one response that arrived in one piece");
    assertEquals(1, transport.writes, "transport writes for a GET");
    assertEquals(1, transport.flushes, "flushes");
    assertEquals("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n", transport.inner.written());
  }

  @Test
  void theReadAResponseHeadWaitsOnIsMadeByTheMethodThatParsesIt() throws IOException {
    // Each client frame between the parse and the transport is one more frame to capture and restore
    // at every suspend in continuation mode: the head's read is made by readResponse itself.
    Counting transport = new Counting(InMemoryTransport.oneByteAtATime(RESPONSE.getBytes(StandardCharsets.ISO_8859_1)));
    new HttpClient(transport, "localhost").get("/");
    assertEquals("readResponse", transport.readCallers.get(0), "the client method that made the first read");
    assertTrue(transport.readCallers.subList(0, 100).stream().allMatch("readResponse"::equals),
        transport.readCallers.subList(0, 100).toString());
  }

  @Test
  void bytesPastAResponseStayForTheNext() throws IOException {
    String second = RESPONSE.replace("200 OK", "404 Not Found");
    Counting transport = new Counting(InMemoryTransport.of(RESPONSE + second));
    HttpClient http = new HttpClient(transport, "localhost");
    assertEquals(200, http.get("/").status());
    HttpResponse next = http.get("/missing");
    assertEquals(404, next.status());
    assertEquals("Not Found", next.reason());
    assertArrayEquals("hello from nginx\n".getBytes(StandardCharsets.US_ASCII), next.body());
    assertEquals(1, transport.reads, "both responses came in the first read");
  }

  @Test
  void aSessionBetweenRequestsHoldsNoBuffer() throws Exception {
    HttpClient http = new HttpClient(InMemoryTransport.of(RESPONSE + "HTTP/1.1 204 No Content\r\n\r\n"), "localhost");
    http.get("/");
    assertEquals(2048, buffer(http, "in").length, "bytes past the response (the 204) are kept, with their buffer");
    assertEquals(0, buffer(http, "out").length, "the request's bytes, once written");
    assertEquals(204, http.get("/").status());
    assertEquals(0, buffer(http, "in").length, "nothing past the response: no buffer kept");
    assertEquals(0, buffer(http, "out").length);
  }

  @Test
  void aLongLineUnderANoLimitClientGrowsTheBufferAsItsBytesArrive() throws IOException {
    // Integer.MAX_VALUE: no limit of the client's own. 300 KiB of one field, delivered a byte at a time.
    String value = "v".repeat(300 * 1024);
    String response = "HTTP/1.1 200 OK\r\nX-Long: " + value + "\r\nContent-Length: 2\r\n\r\nok";
    Counting transport = new Counting(InMemoryTransport.oneByteAtATime(response.getBytes(StandardCharsets.ISO_8859_1)));
    HttpClient http = new HttpClient(transport, "localhost", Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE);
    HttpResponse got = http.get("/");
    assertEquals(value, got.headers().get("X-Long"));
    assertEquals("ok", got.bodyUtf8());
    assertTrue(transport.largestRoomOverReceived <= 2.0, "the buffer's room at a read over the bytes received before it: "
        + transport.largestRoomOverReceived);
  }

  @Test
  void theBufferNeverGrowsPastWhatAnArrayHoldsNorShrinksAtTheTop() {
    long noLimit = Integer.MAX_VALUE + 2L;
    // From 1 GiB, doubling would be 2^31: an int overflow, and NegativeArraySizeException.
    assertEquals(HttpClient.MAX_IN, HttpClient.grownLength(1 << 30, noLimit));
    assertEquals(HttpClient.MAX_IN, HttpClient.grownLength(HttpClient.MAX_IN - 1, noLimit));
    assertEquals(2048, HttpClient.grownLength(0, noLimit));
    assertEquals(8192, HttpClient.grownLength(4096, noLimit));
    assertEquals(8194, HttpClient.grownLength(8192, 8194), "never past what one line needs");
    assertEquals(18, HttpClient.grownLength(0, 18));
  }

  private static byte[] buffer(HttpClient http, String name) throws ReflectiveOperationException {
    Field field = HttpClient.class.getDeclaredField(name);
    field.setAccessible(true);
    return (byte[]) field.get(http);
  }

  /** Counts the calls that move bytes, and passes every call to an {@link InMemoryTransport}. */
  private static final class Counting implements Transport {
    final InMemoryTransport inner;
    int reads;
    int writes;
    int flushes;
    long received;
    /** Per read, the client's method that called it. */
    final List<String> readCallers = new ArrayList<>();
    /** The largest room a read offered beyond the first 2 KiB, over the bytes received before it. */
    double largestRoomOverReceived;

    Counting(InMemoryTransport inner) {
      this.inner = inner;
    }

    @Override
    public String readLine(int limit) throws IOException {
      reads++;
      return inner.readLine(limit);
    }

    @Override
    public String readLine(int limit, Charset charset) throws IOException {
      reads++;
      return inner.readLine(limit, charset);
    }

    @Override
    public String readLineStrict(int limit) throws IOException {
      reads++;
      return inner.readLineStrict(limit);
    }

    @Override
    public String readLineStrict(int limit, Charset charset) throws IOException {
      reads++;
      return inner.readLineStrict(limit, charset);
    }

    @Override
    public void readFully(byte[] dst, int offset, int length) throws IOException {
      reads++;
      inner.readFully(dst, offset, length);
    }

    @Override
    public byte[] readBytes(int byteCount) throws IOException {
      reads++;
      return inner.readBytes(byteCount);
    }

    @Override
    public int read(byte[] dst, int offset, int length) throws IOException {
      reads++;
      readCallers.add(StackWalker.getInstance().walk(frames -> frames
          .filter(f -> f.getClassName().equals(HttpClient.class.getName())).findFirst()
          .map(StackWalker.StackFrame::getMethodName).orElse("none")));
      // What the client holds: the array it reads into, its room and the bytes already in it.
      if (dst.length > 2048) {
        largestRoomOverReceived = Math.max(largestRoomOverReceived, dst.length / (double) received);
      }
      int n = inner.read(dst, offset, length);
      if (n > 0) {
        received += n;
      }
      return n;
    }

    @Override
    public void write(byte[] src, int offset, int length) throws IOException {
      writes++;
      inner.write(src, offset, length);
    }

    @Override
    public void write(byte[] src) throws IOException {
      writes++;
      inner.write(src);
    }

    @Override
    public void write(String text) throws IOException {
      writes++;
      inner.write(text);
    }

    @Override
    public void write(String text, Charset charset) throws IOException {
      writes++;
      inner.write(text, charset);
    }

    @Override
    public void writeLine(String line) throws IOException {
      writes++;
      inner.writeLine(line);
    }

    @Override
    public void flush() throws IOException {
      flushes++;
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
}
