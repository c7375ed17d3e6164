package io.weft.protocols.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.weft.protocols.PerModeTest;
import io.weft.protocols.ModeCase;
import io.weft.protocols.RealServers;
import io.weft.protocols.SessionMode;
import io.weft.testsupport.NginxProcess;
import io.weft.testsupport.ScriptedServer;
import io.weft.testsupport.ScriptedServer.Delivery;
import io.weft.transport.LineTooLongException;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.TransportTimeoutException;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link HttpClient} against the JDK's {@code HttpServer} (every run), a real nginx (where
 * installed; required in CI), and a scripted misbehaving server, in every mode ({@link ModeCase},
 * one invocation of the class each). Every client conversation is a {@link SessionTask} run
 * through the mode's runner (the nested classes below, each after its test). Every scripted test
 * runs with whole and with one-byte-at-a-time delivery.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("modes")
class HttpClientTest extends PerModeTest {
  /** Every mode, with as many sessions at scale as it and the real server take here. */
  static Stream<ModeCase> modes() {
    return ModeCase.all(200, 500, 1000, 1000);
  }

  protected static final Timeout TEN_SECONDS = Timeout.of(10, TimeUnit.SECONDS);
  private static final Duration SCRIPT_WAIT = Duration.ofSeconds(10);
  private static final int BIG_FILE_BYTES = 1024 * 1024 + 17;

  private HttpServer jdkServer;
  private ExecutorService jdkExecutor;
  private final Set<String> remotes = ConcurrentHashMap.newKeySet();
  private NginxProcess nginx;
  private byte[] bigFile;

  /** The body the JDK server's /chunked handler sends for {@code query}. */
  static String chunkedBody(String query) {
    StringBuilder body = new StringBuilder();
    for (int i = 0; i < 5; i++) {
      body.append("chunk ").append(i).append(' ').append(query).append(';');
    }
    return body.toString();
  }

  static {
    // Read once, when the JDK server's configuration class loads. Its response head and body go
    // out in two writes; without TCP_NODELAY the second waits for the client's delayed ACK, some
    // 40 ms per exchange. And since JDK 21 it closes kept-alive connections beyond 200 idle
    // ones, far fewer than the sessions at scale keep open between their requests.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    System.setProperty("sun.net.httpserver.maxIdleConnections", "10000");
  }

  @BeforeAll
  void start() throws IOException {
    jdkServer = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4096);
    jdkExecutor = Executors.newFixedThreadPool(8);
    jdkServer.setExecutor(jdkExecutor);
    jdkServer.createContext("/echo", this::echo);
    jdkServer.createContext("/chunked", this::chunked);
    jdkServer.createContext("/empty", exchange -> {
      drain(exchange);
      exchange.sendResponseHeaders(204, -1);
      exchange.close();
    });
    jdkServer.start();
  }

  @AfterAll
  void stop() {
    if (nginx != null) {
      nginx.close();
    }
    jdkServer.stop(0);
    jdkExecutor.shutdownNow();
  }

  private void echo(HttpExchange exchange) throws IOException {
    byte[] requestBody = drain(exchange);
    remotes.add(exchange.getRemoteAddress().toString());
    String text = exchange.getRequestMethod() + " " + exchange.getRequestURI()
        + " x=" + exchange.getRequestHeaders().getFirst("X-Weft")
        + (requestBody.length > 0 ? " body=" + new String(requestBody, UTF_8) : "");
    byte[] body = text.getBytes(UTF_8);
    exchange.getResponseHeaders().add("X-Remote", exchange.getRemoteAddress().toString());
    exchange.sendResponseHeaders(200, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private void chunked(HttpExchange exchange) throws IOException {
    drain(exchange);
    String query = exchange.getRequestURI().getQuery();
    exchange.sendResponseHeaders(200, 0);
    try (OutputStream out = exchange.getResponseBody()) {
      for (int i = 0; i < 5; i++) {
        out.write(("chunk " + i + " " + query + ";").getBytes(UTF_8));
        out.flush();
      }
    }
  }

  private static byte[] drain(HttpExchange exchange) throws IOException {
    try (InputStream in = exchange.getRequestBody()) {
      return in.readAllBytes();
    }
  }

  private InetSocketAddress jdk() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), jdkServer.getAddress().getPort());
  }

  private NginxProcess nginx() throws Exception {
    if (nginx == null) {
      java.nio.file.Path binary = RealServers.require(NginxProcess.BINARY, NginxProcess.DEBIAN_PACKAGE);
      String template;
      try (InputStream in = HttpClientTest.class.getResourceAsStream("/nginx/nginx.conf.template")) {
        template = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      bigFile = new byte[BIG_FILE_BYTES];
      new Random(42).nextBytes(bigFile);
      nginx = NginxProcess.start(binary, template,
          Map.of("big.bin", bigFile, "small.txt", "small file\n".getBytes(UTF_8)));
    }
    return nginx;
  }

  private <T> T runAgainst(ScriptedServer.Script script, Delivery delivery, Class<? extends SessionTask<T>> task,
      Object... args) throws Exception {
    try (ScriptedServer server = ScriptedServer.start(script, delivery)) {
      return mode.run(task, server.address(), TEN_SECONDS, args);
    }
  }

  // ---- against the JDK's HttpServer ----

  @Test
  public void getWithHeadersReadsAContentLengthBody() throws Exception {
    mode.run(GetWithHeaders.class, jdk(), TEN_SECONDS);
  }

  public static final class GetWithHeaders implements SessionTask<Boolean> {
    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      HttpClient http = new HttpClient(transport, "localhost");
      HttpResponse response = http.get("/echo?a=1", HttpHeaders.of("X-Weft", "héllo"));
      assertEquals(200, response.status());
      assertEquals("HTTP/1.1", response.version());
      assertNotNull(response.headers().get("content-length"));
      assertEquals("GET /echo?a=1 x=héllo", response.bodyUtf8());
      return true;
    }
  }

  @Test
  public void postSendsTheBodyWithItsContentLength() throws Exception {
    assertEquals("POST /echo x=p body=a\r\nbody", mode.run(Post.class, jdk(), TEN_SECONDS));
  }

  public static final class Post implements SessionTask<String> {
    @Override
    public String run(Transport transport, int index) throws Exception {
      HttpClient http = new HttpClient(transport, "localhost");
      return http.post("/echo", HttpHeaders.of("X-Weft", "p"), "a\r\nbody".getBytes(UTF_8)).bodyUtf8();
    }
  }

  @Test
  public void chunkedBodyIsReassembled() throws Exception {
    mode.run(Chunked.class, jdk(), TEN_SECONDS, chunkedBody("q=z"));
  }

  public static final class Chunked implements SessionTask<Boolean> {
    private final String expected;

    public Chunked(String expected) {
      this.expected = expected;
    }

    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      HttpClient http = new HttpClient(transport, "localhost");
      HttpResponse response = http.get("/chunked?q=z");
      assertEquals("chunked", response.headers().get("Transfer-Encoding"));
      assertEquals(expected, response.bodyUtf8());
      assertTrue(http.isReusable());
      return true;
    }
  }

  @Test
  public void keepAliveReusesOneConnectionAcrossRequests() throws Exception {
    mode.run(KeepAlive.class, jdk(), TEN_SECONDS);
  }

  public static final class KeepAlive implements SessionTask<Boolean> {
    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      HttpClient http = new HttpClient(transport, "localhost");
      String firstRemote = http.get("/echo?n=0").headers().get("X-Remote");
      for (int i = 1; i < 10; i++) {
        HttpResponse response = i % 2 == 0 ? http.get("/echo?n=" + i) : http.get("/chunked?n=" + i);
        assertEquals(200, response.status());
      }
      assertEquals(204, http.get("/empty").status());
      assertEquals(firstRemote, http.get("/echo?n=last").headers().get("X-Remote"));
      assertTrue(http.isReusable());
      return true;
    }
  }

  @Test
  public void concurrentSessionsEachKeepTheirConnectionAlive() throws Exception {
    // One descriptor per session here, and one for the server's end of it: it runs in this JVM.
    SessionMode.requireFileDescriptors(2L * modeCase.sessionsAtScale());
    List<String> results = mode.runSessions(HttpKeepAliveSession.class, jdk(), modeCase.sessionsAtScale(), TEN_SECONDS);
    for (int i = 0; i < modeCase.sessionsAtScale(); i++) {
      assertEquals(HttpKeepAliveSession.expected(i), results.get(i), "session " + i);
    }
  }

  // ---- against nginx ----

  @Test
  public void nginxServesABigStaticFileByteForByte() throws Exception {
    NginxProcess server = nginx();
    try {
      mode.run(BigFile.class, server.address(), TEN_SECONDS, "localhost:" + server.port(), bigFile);
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + server.describeLogs(), e);
    }
  }

  public static final class BigFile implements SessionTask<Boolean> {
    private final String host;
    private final byte[] expected;

    public BigFile(String host, byte[] expected) {
      this.host = host;
      this.expected = expected;
    }

    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      HttpClient http = new HttpClient(transport, host);
      HttpResponse response = http.get("/big.bin");
      assertEquals(200, response.status());
      assertEquals(Integer.toString(expected.length), response.headers().get("Content-Length"));
      assertArrayEquals(expected, response.body());
      assertEquals("small file\n", http.get("/small.txt").bodyUtf8());
      assertEquals("hello from nginx\n", http.get("/hello").bodyUtf8());
      assertTrue(http.isReusable());
      return true;
    }
  }

  @Test
  public void nginxHeadHasContentLengthButNoBody() throws Exception {
    mode.run(Head.class, nginx().address(), TEN_SECONDS);
  }

  public static final class Head implements SessionTask<Boolean> {
    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      HttpClient http = new HttpClient(transport, "localhost");
      HttpResponse head = http.head("/big.bin", null);
      assertEquals(200, head.status());
      assertEquals(Integer.toString(BIG_FILE_BYTES), head.headers().get("Content-Length"));
      assertEquals(0, head.bodyLength());
      // The next exchange on the same connection proves no body was left unread.
      assertEquals("small file\n", http.get("/small.txt").bodyUtf8());
      return true;
    }
  }

  @Test
  public void nginxErrorResponsesAreResponsesToo() throws Exception {
    mode.run(ErrorResponses.class, nginx().address(), TEN_SECONDS);
  }

  public static final class ErrorResponses implements SessionTask<Boolean> {
    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      HttpClient http = new HttpClient(transport, "localhost");
      HttpResponse missing = http.get("/no/such/file");
      assertEquals(404, missing.status());
      assertTrue(missing.bodyUtf8().contains("404"), missing.bodyUtf8());
      HttpResponse post = http.post("/small.txt", null, "x".getBytes(UTF_8));
      assertEquals(405, post.status());
      HttpResponse close = http.get("/small.txt", HttpHeaders.of("Connection", "close"));
      assertEquals("small file\n", close.bodyUtf8());
      assertFalse(http.isReusable());
      try {
        http.get("/small.txt");
        fail("a request on a connection the server closed");
      } catch (IllegalStateException expected) {
        // not reusable
      }
      return true;
    }
  }

  @Test
  public void bodyOverTheLimitIsRefusedBeforeReadingIt() throws Exception {
    // Outside assertThrows: without nginx the test is skipped, not failed.
    NginxProcess server = nginx();
    ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
        () -> mode.run(GetSmallLimits.class, server.address(), TEN_SECONDS, "/big.bin"));
    assertTrue(e.getMessage().contains("Content-Length " + BIG_FILE_BYTES + " over the body limit of 1000"), e.getMessage());
  }

  /** One GET of the path given, for the small limits of {@code new HttpClient(t, "h", 100, 4096, 1000)}. */
  public static final class GetSmallLimits implements SessionTask<String> {
    private final String path;

    public GetSmallLimits(String path) {
      this.path = path;
    }

    @Override
    public String run(Transport transport, int index) throws Exception {
      return new HttpClient(transport, "h", 100, 4096, 1000).get(path).bodyUtf8();
    }
  }

  /** One GET of the path given, default limits; returns the body. */
  public static final class Get implements SessionTask<String> {
    private final String path;

    public Get(String path) {
      this.path = path;
    }

    @Override
    public String run(Transport transport, int index) throws Exception {
      return new HttpClient(transport, "h").get(path).bodyUtf8();
    }
  }

  // ---- against a scripted, misbehaving server ----

  /** The scripted server reads one request without a body: request line, Host, blank line. */
  private static ScriptedServer.Script afterRequest() {
    return ScriptedServer.script().readLines(3);
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void everyFramingParsesWhateverTheDelivery(Delivery delivery) throws Exception {
    ScriptedServer.Script script = afterRequest()
        .send("HTTP/1.1 100 Continue\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A:  spaced value \t\r\n\r\nhello")
        .readLines(3)
        .send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "3;ext=1\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nTrailer: x\r\n\r\n")
        .readLines(3)
        .send("HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\n\r\n")
        .readLines(3)
        .send("HTTP/1.0 200 OK\r\n\r\nuntil the end")
        .close();
    try (ScriptedServer server = ScriptedServer.start(script, delivery)) {
      mode.run(EveryFraming.class, server.address(), TEN_SECONDS);
      server.awaitScript(SCRIPT_WAIT);
      assertEquals(List.of("GET /1 HTTP/1.1", "Host: h", ""), server.receivedLines().subList(0, 3));
    }
  }

  public static final class EveryFraming implements SessionTask<Boolean> {
    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      HttpClient http = new HttpClient(transport, "h");
      HttpResponse first = http.get("/1");
      assertEquals("hello", first.bodyUtf8());
      assertEquals("spaced value", first.headers().get("x-a"));
      assertEquals("abc0123456789abcdef", http.get("/2").bodyUtf8());
      HttpResponse notModified = http.get("/3");
      assertEquals(304, notModified.status());
      assertEquals(0, notModified.bodyLength());
      HttpResponse untilClose = http.get("/4");
      assertEquals("until the end", untilClose.bodyUtf8());
      assertFalse(http.isReusable());
      return true;
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void headerLineOverTheLimitIsAViolationQuotingIt(Delivery delivery) throws Exception {
    String response = "HTTP/1.1 200 OK\r\nX-Long: " + "v".repeat(300) + "\r\n\r\n";
    runAgainst(afterRequest().send(response), delivery, LongHeaderLine.class);
  }

  public static final class LongHeaderLine implements SessionTask<Boolean> {
    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      HttpClient http = new HttpClient(transport, "h", 100, 4096, 1000);
      try {
        http.get("/");
        fail("a 300-byte header line passed a 100-byte limit");
      } catch (LineTooLongException e) {
        assertTrue(e.getMessage().contains("\"X-Long: vvv"), e.getMessage());
      }
      try {
        http.get("/");
        fail("the client carried on after a violation");
      } catch (IllegalStateException expected) {
        // the connection's framing is lost
      }
      return true;
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void headerSectionOverTheLimitIsAViolation(Delivery delivery) {
    StringBuilder response = new StringBuilder("HTTP/1.1 200 OK\r\n");
    for (int i = 0; i < 40; i++) {
      response.append("X-Header-").append(i).append(": ").append("v".repeat(40)).append("\r\n");
    }
    response.append("\r\n");
    assertThrows(ProtocolViolationException.class,
        () -> runAgainst(afterRequest().send(response.toString()), delivery, GetSmallLimits.class, "/"));
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void truncatedBodyIsAnEofQuotingWhatCame(Delivery delivery) {
    String response = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc";
    EOFException e = assertThrows(EOFException.class,
        () -> runAgainst(afterRequest().send(response).close(), delivery, Get.class, "/"));
    assertTrue(e.getMessage().contains("3 of 10 bytes: \"abc\""), e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void truncatedChunkIsAnEofQuotingWhatCame(Delivery delivery) {
    String response = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab";
    EOFException e = assertThrows(EOFException.class,
        () -> runAgainst(afterRequest().send(response).close(), delivery, Get.class, "/"));
    assertTrue(e.getMessage().contains("2 of 5 bytes: \"ab\""), e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void nonNumericStatusIsAViolationQuotingTheLine(Delivery delivery) {
    ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
        () -> runAgainst(afterRequest().send("HTTP/1.1 2x0 OK\r\n\r\n"), delivery, Get.class, "/"));
    assertEquals("non-numeric status code: \"HTTP/1.1 2x0 OK\"", e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void nonNumericLengthsAreViolationsQuotingThem(Delivery delivery) {
    ProtocolViolationException length = assertThrows(ProtocolViolationException.class,
        () -> runAgainst(afterRequest().send("HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n"), delivery, Get.class, "/"));
    assertEquals("non-numeric Content-Length: \"Content-Length: 12a\"", length.getMessage());
    ProtocolViolationException chunk = assertThrows(ProtocolViolationException.class,
        () -> runAgainst(afterRequest().send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"), delivery,
            Get.class, "/"));
    assertEquals("non-numeric chunk size: \"zz\"", chunk.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void somethingOtherThanAnHttpResponseIsAViolation(Delivery delivery) {
    ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
        () -> runAgainst(afterRequest().send("SSH-2.0-OpenSSH_9.2\r\n"), delivery, Get.class, "/"));
    assertEquals("not an HTTP/1.x status line: \"SSH-2.0-OpenSSH_9.2\"", e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void serverClosingMidHeadersIsAnEofQuotingThePartialLine(Delivery delivery) {
    EOFException e = assertThrows(EOFException.class,
        () -> runAgainst(afterRequest().send("HTTP/1.1 200 OK\r\nContent-Ty").close(), delivery, Get.class, "/"));
    assertTrue(e.getMessage().contains("\"Content-Ty\""), e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void bodiesOverTheLimitAreViolationsWhateverTheFraming(Delivery delivery) {
    String chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n";
    ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
        () -> runAgainst(afterRequest().send(chunked), delivery, GetTenByteBodies.class));
    assertTrue(e.getMessage().startsWith("chunked body over the limit of 10 bytes"), e.getMessage());
    String untilClose = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + "x".repeat(11);
    ProtocolViolationException closed = assertThrows(ProtocolViolationException.class,
        () -> runAgainst(afterRequest().send(untilClose).close(), delivery, GetTenByteBodies.class));
    assertEquals("body over the limit of 10 bytes", closed.getMessage());
  }

  public static final class GetTenByteBodies implements SessionTask<String> {
    @Override
    public String run(Transport transport, int index) throws Exception {
      return new HttpClient(transport, "h", 100, 4096, 10).get("/").bodyUtf8();
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void serverStallingMidBodyTimesOutInsteadOfHanging(Delivery delivery) throws Exception {
    ScriptedServer.Script script = afterRequest()
        .send("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nab").stall(Duration.ofSeconds(5));
    try (ScriptedServer server = ScriptedServer.start(script, delivery)) {
      mode.run(Stalled.class, server.address(), Timeout.of(300, TimeUnit.MILLISECONDS));
    }
  }

  public static final class Stalled implements SessionTask<Boolean> {
    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      HttpClient http = new HttpClient(transport, "h");
      try {
        http.get("/");
        fail("a stalled body came back");
      } catch (TransportTimeoutException expected) {
        assertFalse(http.isReusable());
      }
      return true;
    }
  }

  /** docs/errors.md: a read's timeout names what it waited for and quotes what had arrived. */
  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void serverStallingMidHeaderTimesOutQuotingThePartialLine(Delivery delivery) throws Exception {
    ScriptedServer.Script script = afterRequest()
        .send("HTTP/1.1 200 OK\r\nContent-Le").stall(Duration.ofSeconds(5));
    try (ScriptedServer server = ScriptedServer.start(script, delivery)) {
      assertEquals("read timed out after 300 ms waiting for a line (limit 8192 bytes); 10 bytes read so far: \"Content-Le\"",
          mode.run(StalledMidHeader.class, server.address(), Timeout.of(300, TimeUnit.MILLISECONDS)));
    }
  }

  public static final class StalledMidHeader implements SessionTask<String> {
    @Override
    public String run(Transport transport, int index) throws Exception {
      HttpClient http = new HttpClient(transport, "h");
      try {
        http.get("/");
      } catch (TransportTimeoutException e) {
        return e.getMessage();
      }
      return "no timeout";
    }
  }

  @Test
  public void requestHeadersCannotSmuggleLineBreaks() {
    assertThrows(IllegalArgumentException.class, () -> HttpHeaders.of("X-A", "v\r\nX-B: w"));
    assertThrows(IllegalArgumentException.class, () -> HttpHeaders.of("X A", "v"));
    assertThrows(IllegalArgumentException.class, () -> HttpHeaders.of("X-A", "\u20ac"));
  }
}
