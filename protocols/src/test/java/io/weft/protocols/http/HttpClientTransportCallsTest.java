package io.weft.protocols.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.testsupport.InMemoryTransport;
import io.weft.transport.LineTooLongException;
import io.weft.transport.ProtocolViolationException;
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
  private static final String BIG_BODY = "0123456789abcdef".repeat(200);
  private static final String BIG_RESPONSE = "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Length: " + BIG_BODY.length()
      + "\r\n\r\n" + BIG_BODY;

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
    assertEquals(HttpClient.MAX_IN, HttpClient.grownLength(1 << 30, noLimit, 2048));
    assertEquals(HttpClient.MAX_IN, HttpClient.grownLength(HttpClient.MAX_IN - 1, noLimit, 2048));
    assertEquals(2048, HttpClient.grownLength(0, noLimit, 2048));
    assertEquals(448, HttpClient.grownLength(0, noLimit, 448), "a new buffer starts at the fitted length");
    assertEquals(896, HttpClient.grownLength(448, noLimit, 448));
    assertEquals(8192, HttpClient.grownLength(4096, noLimit, 2048));
    assertEquals(8194, HttpClient.grownLength(8192, 8194, 2048), "never past what one line needs");
    assertEquals(18, HttpClient.grownLength(0, 18, 2048));
  }

  @Test
  void aKeptAliveClientReadsSmallResponsesIntoABufferFittedToThem() throws IOException {
    // One response per read, as a server answering each request gives them.
    int responses = 8;
    Counting transport = new Counting(InMemoryTransport.of(RESPONSE.repeat(responses) + BIG_RESPONSE + RESPONSE));
    HttpClient http = new HttpClient(transport, "localhost");
    for (int i = 0; i < responses; i++) {
      transport.perRead = RESPONSE.length();
      HttpResponse got = http.get("/");
      assertArrayEquals("hello from nginx\n".getBytes(StandardCharsets.US_ASCII), got.body());
    }
    assertEquals(responses, transport.reads, "one read per response, the fitted buffer too: " + transport.readArrays);
    assertEquals(2048, transport.readArrays.get(0), "a new client's first buffer");
    int last = transport.readArrays.get(responses - 1);
    assertTrue(last >= RESPONSE.length() && last <= RESPONSE.length() * 3 / 2 + 64,
        "the buffer a " + RESPONSE.length() + "-byte response is read into, after " + (responses - 1)
        + " of them: " + transport.readArrays);

    // A larger response than the fitted buffer holds: whole, and the next buffer is larger again.
    transport.perRead = BIG_RESPONSE.length();
    assertEquals(BIG_BODY, http.get("/big").bodyUtf8());
    int bigFirstRead = transport.readArrays.size();
    transport.perRead = RESPONSE.length();
    assertEquals(200, http.get("/").status());
    assertEquals(last, transport.readArrays.get(responses), "the large response's first read went into the fitted buffer");
    assertEquals(2 * last, transport.readArrays.get(bigFirstRead), "a response that filled the buffer: the next starts at twice it");
  }

  @Test
  void aCommonFieldNameIsOneStringForEveryResponseAndAnyOtherIsReadAsSent() throws IOException {
    String other = "HTTP/1.1 200 OK\r\nCONTENT-LENGTH: 2\r\nX-Weft: \t v a \t\r\nDate:\r\nx-weft:w\r\n\r\nok";
    HttpClient http = new HttpClient(InMemoryTransport.of(RESPONSE + RESPONSE + other), "localhost");
    HttpHeaders first = http.get("/").headers();
    HttpHeaders second = http.get("/").headers();
    assertEquals(8, second.size());
    for (int i = 0; i < first.size(); i++) {
      assertSame(first.name(i), second.name(i), "field " + i + "'s name, " + first.name(i) + ", in two responses");
    }
    HttpResponse response = http.get("/");
    HttpHeaders fields = response.headers();
    assertEquals(List.of("CONTENT-LENGTH", "X-Weft", "Date", "x-weft"),
        List.of(fields.name(0), fields.name(1), fields.name(2), fields.name(3)), "names as sent");
    assertEquals(List.of("v a", "w"), fields.values("X-WEFT"), "values without the spaces and tabs around them");
    assertEquals("", fields.get("date"));
    assertEquals("ok", response.bodyUtf8());
  }

  @Test
  void aClientForANewConnectionStartsAtTheBufferSizeThePreviousOneFitted() throws IOException {
    Counting first = new Counting(InMemoryTransport.of(RESPONSE.repeat(4)));
    first.perRead = RESPONSE.length();
    HttpClient old = new HttpClient(first, "example.org:8080", 1024, 4096, 100);
    for (int i = 0; i < 4; i++) {
      old.get("/");
    }
    int fitted = first.readArrays.get(3);
    assertTrue(fitted < 2048, "the first client's buffer after 4 responses: " + first.readArrays);

    Counting second = new Counting(InMemoryTransport.of(RESPONSE));
    HttpClient next = old.forNewConnection(second);
    assertEquals(200, next.get("/").status());
    assertEquals(List.of(fitted), second.readArrays, "the new connection's first response, in one read into the fitted buffer");
    assertEquals("GET / HTTP/1.1\r\nHost: example.org:8080\r\n\r\n", second.inner.written(), "the same Host");
    Counting third = new Counting(InMemoryTransport.of("HTTP/1.1 200 OK\r\nContent-Length: 101\r\n\r\n" + "x".repeat(101)));
    ProtocolViolationException over = assertThrows(ProtocolViolationException.class, () -> next.forNewConnection(third).get("/"));
    assertTrue(over.getMessage().contains("over the body limit of 100 bytes"), "the same body limit: " + over.getMessage());
    Counting fourth = new Counting(InMemoryTransport.of("HTTP/1.1 200 OK\r\nX-Long: " + "y".repeat(1100) + "\r\n\r\n"));
    HttpClient broken = old.forNewConnection(fourth);
    LineTooLongException longLine = assertThrows(LineTooLongException.class, () -> broken.get("/"));
    assertEquals(1024, longLine.limit(), "the same line limit");
    String field = "X-Wide: " + "z".repeat(900) + "\r\n";
    Counting fifth = new Counting(InMemoryTransport.of("HTTP/1.1 200 OK\r\n" + field.repeat(4) + "Content-Length: 0\r\n\r\n"));
    ProtocolViolationException wide = assertThrows(ProtocolViolationException.class, () -> old.forNewConnection(fifth).get("/"));
    assertTrue(wide.getMessage().contains("header section over the limit of 4096"), "the same header limit: " + wide.getMessage());
    assertThrows(IllegalStateException.class, () -> broken.get("/"), "broken");
    Counting sixth = new Counting(InMemoryTransport.of(RESPONSE));
    assertEquals(200, broken.forNewConnection(sixth).get("/").status(), "a broken client still makes a working one");
    assertEquals(List.of(fitted), sixth.readArrays, "started at the size fitted before, passed on through the broken client");
    assertThrows(IllegalArgumentException.class, () -> old.forNewConnection(null));
  }

  @Test
  void theNextBufferFollowsWhatTheLastResponseHeld() {
    assertEquals(448, HttpClient.nextFirstIn(448, 270, 448), "1.5 x 270, rounded up to 64");
    assertEquals(1024, HttpClient.nextFirstIn(2048, 270, 2048), "it shrinks by at most half per response");
    assertEquals(896, HttpClient.nextFirstIn(448, 448, 448), "a read filled it: twice");
    assertEquals(2048, HttpClient.nextFirstIn(2048, 2048, 2048), "never above 2 KiB");
    assertEquals(2048, HttpClient.nextFirstIn(2048, 9000, 16384), "a buffer grown for a long line: 2 KiB");
    assertEquals(HttpClient.MIN_FIRST_IN, HttpClient.nextFirstIn(128, 27, 2048), "never below the least");
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
    /** Per read, the length of the array the client read into. */
    final List<Integer> readArrays = new ArrayList<>();
    /** The most bytes one read hands out. */
    int perRead = Integer.MAX_VALUE;

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
      readArrays.add(dst.length);
      int n = inner.read(dst, offset, Math.min(length, perRead));
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
