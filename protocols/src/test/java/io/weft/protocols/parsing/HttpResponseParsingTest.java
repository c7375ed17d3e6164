package io.weft.protocols.parsing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.protocols.http.HttpClient;
import io.weft.protocols.http.HttpResponse;
import io.weft.testsupport.InMemoryTransport;
import io.weft.transport.ProtocolViolationException;
import java.io.EOFException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** HTTP/1.1 response parsing, over an in-memory transport: the body forms and the broken edges. */
class HttpResponseParsingTest {

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aContentLengthBodyIsReadExactly(Delivery delivery) throws Exception {
    InMemoryTransport transport = delivery.of(
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: b\r\n\r\nhelloHTTP/1.1 204 No Content\r\n\r\n");
    HttpClient client = new HttpClient(transport, "example.test");
    HttpResponse response = client.get("/a");
    assertEquals(200, response.status());
    assertEquals("OK", response.reason());
    assertEquals("b", response.headers().get("X-A"));
    assertEquals("hello", response.bodyUtf8());
    assertEquals(204, client.get("/b").status());
    assertEquals(0, transport.unread());
    assertTrue(transport.written().startsWith("GET /a HTTP/1.1\r\n"), transport.written());
    assertTrue(transport.written().contains("\r\nHost: example.test\r\n"), transport.written());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aChunkedBodyIsJoinedAndItsTrailersRead(Delivery delivery) throws Exception {
    HttpClient client = new HttpClient(delivery.of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\nTrailer: t\r\n\r\n"), "h");
    assertEquals("abcde", client.get("/").bodyUtf8());
    assertTrue(client.isReusable());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aBadStatusLineIsAProtocolViolationQuotingIt(Delivery delivery) {
    HttpClient client = new HttpClient(delivery.of("SPDY/3 200 OK\r\n\r\n"), "h");
    ProtocolViolationException e = assertThrows(ProtocolViolationException.class, () -> client.get("/"));
    assertTrue(e.getMessage().contains("SPDY/3 200 OK"), e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aBodyCutShortIsAnEndOfStream(Delivery delivery) {
    HttpClient client = new HttpClient(delivery.of("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort"), "h");
    assertThrows(EOFException.class, () -> client.get("/"));
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aHeaderSectionOverItsLimitIsRefused(Delivery delivery) {
    String big = "X-Big: " + "y".repeat(200) + "\r\n";
    HttpClient client = new HttpClient(delivery.of("HTTP/1.1 200 OK\r\n" + big.repeat(10) + "\r\n"), "h",
        256, 1024, 1024);
    ProtocolViolationException e = assertThrows(ProtocolViolationException.class, () -> client.get("/"));
    // The last line read gets only what is left of the 1024-byte budget, and quotes itself.
    assertTrue(e.getMessage().contains("X-Big: yyy"), e.getMessage());
  }
}
