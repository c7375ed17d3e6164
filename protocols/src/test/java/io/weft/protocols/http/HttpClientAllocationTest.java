package io.weft.protocols.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.testsupport.InMemoryTransport;
import io.weft.transport.Timeout;
import io.weft.transport.socket.SocketTransport;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/**
 * What a kept-alive exchange of a small response allocates on the caller's thread, over a real
 * loopback connection (SYNC, the socket transport) to a scripted peer that answers each request
 * with nginx's response to a GET of a 17-byte file (253 bytes, sent in one write): the request's
 * bytes, a buffer for the response's bytes fitted to the responses seen so far, and the parse's
 * status line, field values, fields and response: 1,336 bytes per exchange (JDK 17.0.15 and
 * 25.0.3 alike). And what a response that ends its connection costs beside one that keeps it.
 */
class HttpClientAllocationTest {
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
  private static final byte[] RESPONSE = ("HTTP/1.1 200 OK\r\nServer: nginx/1.24.0\r\n"
      + "Date: Thu, 26 Nov 2026 23:59:59 GMT\r\nContent-Type: text/html\r\nContent-Length: 17\r\n"
      + "Last-Modified: Thu, 26 Nov 2026 23:00:00 GMT\r\nConnection: keep-alive\r\n"
      + "ETag: \"6a3b2c1d-11\"\r\nAccept-Ranges: bytes\r\n\r\nhello from nginx\n").getBytes(StandardCharsets.ISO_8859_1);
  /** Enough exchanges for C2 to compile the parse, then the measured ones. */
  private static final int WARM_UP = 20_000;
  private static final int MEASURED = 5_000;
  /**
   * What one exchange may allocate: 1,336 bytes measured, with room to spare; neither a fresh
   * 2 KiB buffer (2,336 and more) nor a String per header line (about 1,000 bytes for this
   * response's nine lines) besides.
   */
  private static final long MOST_PER_EXCHANGE = 1_792;

  @Test
  void aKeptAliveExchangeOfASmallResponseAllocatesNoFresh2KiBBuffer(TestReporter reporter) throws Exception {
    try (ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
      Thread peer = new Thread(() -> answerEveryRequest(server), "scripted-http-peer");
      peer.setDaemon(true);
      peer.start();
      try (SocketTransport transport = SocketTransport.connect(
          new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()), Timeout.of(10, TimeUnit.SECONDS))) {
        HttpClient http = new HttpClient(transport, "localhost");
        for (int i = 0; i < WARM_UP; i++) {
          exchange(http);
        }
        long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < MEASURED; i++) {
          exchange(http);
        }
        long perExchange = (THREADS.getCurrentThreadAllocatedBytes() - before) / MEASURED;
        reporter.publishEntry("bytes allocated per exchange", Long.toString(perExchange));
        assertTrue(perExchange <= MOST_PER_EXCHANGE, "bytes allocated per exchange of a " + RESPONSE.length
            + "-byte response: " + perExchange + ", at most " + MOST_PER_EXCHANGE + " expected");
      }
    }
  }

  @Test
  void aResponseThatEndsItsConnectionCostsNoMoreThanOneThatKeepsIt(TestReporter reporter) throws IOException {
    // The same bytes but for the one token; the spent client's reason is worded when asked.
    String close = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok";
    String kept = "HTTP/1.1 200 OK\r\nConnection: other\r\nContent-Length: 2\r\n\r\nok";
    HttpClient spent = new HttpClient(InMemoryTransport.of(close), "localhost");
    spent.get("/");
    IllegalStateException refused = assertThrows(IllegalStateException.class, () -> spent.get("/"));
    assertEquals("connection not reusable: the server sent HTTP/1.1 with Connection: close", refused.getMessage());
    HttpClient reusable = new HttpClient(InMemoryTransport.of(kept), "localhost");
    reusable.get("/");
    assertTrue(reusable.isReusable());

    oneConnectionEach(close, WARM_UP);
    oneConnectionEach(kept, WARM_UP);
    long closing = oneConnectionEach(close, MEASURED);
    long keeping = oneConnectionEach(kept, MEASURED);
    reporter.publishEntry("bytes per exchange and client", closing + " with Connection: close, " + keeping + " without");
    assertTrue(closing <= keeping + 32, "bytes per exchange and client: " + closing + " with Connection: close, "
        + keeping + " without");
  }

  /** Bytes allocated per exchange, each on a client and connection of its own, the connections made first. */
  private static long oneConnectionEach(String response, int exchanges) throws IOException {
    InMemoryTransport[] connections = new InMemoryTransport[exchanges];
    for (int i = 0; i < exchanges; i++) {
      connections[i] = InMemoryTransport.of(response);
    }
    long before = THREADS.getCurrentThreadAllocatedBytes();
    for (InMemoryTransport connection : connections) {
      new HttpClient(connection, "localhost").get("/");
    }
    return (THREADS.getCurrentThreadAllocatedBytes() - before) / exchanges;
  }

  private static void exchange(HttpClient http) throws IOException {
    HttpResponse response = http.get("/");
    assertEquals(200, response.status());
    assertEquals(17, response.body().length);
  }

  /** Reads each request's head (up to its empty line) and answers it in one write, until the client closes. */
  private static void answerEveryRequest(ServerSocket server) {
    try (Socket socket = server.accept()) {
      socket.setTcpNoDelay(true);
      InputStream in = socket.getInputStream();
      OutputStream out = socket.getOutputStream();
      byte[] buffer = new byte[4096];
      int matched = 0;
      for (;;) {
        int n = in.read(buffer);
        if (n < 0) {
          return;
        }
        for (int i = 0; i < n; i++) {
          byte b = buffer[i];
          // The end of a head: \r\n\r\n.
          matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
          if (matched == 4) {
            matched = 0;
            out.write(RESPONSE);
          }
        }
      }
    } catch (IOException e) {
      // The client went away: the test has its figure, or its own failure.
    }
  }
}
