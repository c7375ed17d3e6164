package io.weft.protocols.parsing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.protocols.redis.RedisClient;
import io.weft.protocols.redis.RedisErrorException;
import io.weft.testsupport.InMemoryTransport;
import io.weft.transport.ProtocolViolationException;
import java.io.EOFException;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** RESP2 reply parsing, over an in-memory transport: every reply type, and every broken edge. */
class RedisReplyParsingTest {

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void everyReplyTypeIsReturnedAsItsJavaType(Delivery delivery) throws Exception {
    InMemoryTransport transport = delivery.of(
        "+OK\r\n:42\r\n$5\r\nhello\r\n$-1\r\n*3\r\n:1\r\n$2\r\nab\r\n*1\r\n+x\r\n*-1\r\n");
    RedisClient client = new RedisClient(transport);
    assertEquals("OK", client.call("PING"));
    assertEquals(42L, client.call("INCR", "n"));
    assertArrayEquals("hello".getBytes(UTF_8), (byte[]) client.call("GET", "k"));
    assertNull(client.call("GET", "missing"));
    List<?> array = (List<?>) client.call("X");
    assertEquals(1L, array.get(0));
    assertArrayEquals("ab".getBytes(UTF_8), (byte[]) array.get(1));
    assertEquals(List.of("x"), array.get(2));
    assertNull(client.call("Y"));
    assertEquals(0, transport.unread());
    assertTrue(transport.written().startsWith("*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n"),
        transport.written());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void anErrorReplyIsThrownAndTheClientStaysUsable(Delivery delivery) throws Exception {
    RedisClient client = new RedisClient(delivery.of("-ERR wrong type\r\n+OK\r\n"));
    RedisErrorException e = assertThrows(RedisErrorException.class, () -> client.call("INCR", "s"));
    assertTrue(e.getMessage().contains("ERR wrong type"), e.getMessage());
    assertEquals("OK", client.call("PING"));
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void anUnknownTypeByteIsAProtocolViolationQuotingTheLine(Delivery delivery) {
    RedisClient client = new RedisClient(delivery.of("?what\r\n"));
    ProtocolViolationException e = assertThrows(ProtocolViolationException.class, () -> client.call("PING"));
    assertTrue(e.getMessage().contains("?what"), e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aBulkStringCutShortIsAnEndOfStream(Delivery delivery) {
    RedisClient client = new RedisClient(delivery.of("$10\r\nhalf"));
    assertThrows(EOFException.class, () -> client.call("GET", "k"));
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aBulkLengthOverTheLimitIsRefusedBeforeAnythingIsRead(Delivery delivery) {
    InMemoryTransport transport = delivery.of("$1000\r\n" + "x".repeat(1000) + "\r\n");
    RedisClient client = new RedisClient(transport, 1024, 100, 100);
    ProtocolViolationException e = assertThrows(ProtocolViolationException.class, () -> client.call("GET", "k"));
    assertTrue(e.getMessage().contains("over the limit of 100 bytes"), e.getMessage());
    assertTrue(transport.unread() >= 1000, "the body was not read: " + transport.unread() + " bytes left");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void afterABrokenReplyEveryCallIsRefused(Delivery delivery) {
    RedisClient client = new RedisClient(delivery.of("?broken\r\n+OK\r\n"));
    assertThrows(ProtocolViolationException.class, () -> client.call("PING"));
    assertThrows(IllegalStateException.class, () -> client.call("PING"));
  }
}
