package io.weft.protocols.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.protocols.RealServers;
import io.weft.protocols.TransportMode;
import io.weft.testsupport.RedisServerProcess;
import io.weft.testsupport.ScriptedServer;
import io.weft.testsupport.ScriptedServer.Delivery;
import io.weft.transport.LineTooLongException;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.TransportTimeoutException;
import java.io.EOFException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link RedisClient} against a real {@code redis-server} and against a scripted misbehaving
 * one, in the mode a subclass supplies. Every scripted test runs with whole and with
 * one-byte-at-a-time delivery.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@org.junit.jupiter.api.Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class RedisClientTest {
  protected static final Timeout TEN_SECONDS = Timeout.of(10, TimeUnit.SECONDS);
  private static final Duration SCRIPT_WAIT = Duration.ofSeconds(10);
  /**
   * Sessions in the test at scale: 200 on the platform threads of {@code SYNC}; a mode that
   * multiplexes sessions (continuations, virtual threads) overrides this with thousands.
   */
  protected int sessionsAtScale() {
    return 200;
  }

  private TransportMode mode;
  private RedisServerProcess redis;

  /** The mode under test; called once per test class. */
  protected abstract TransportMode newMode();

  @BeforeAll
  void openMode() {
    mode = newMode();
  }

  @AfterAll
  void closeAll() {
    if (redis != null) {
      redis.close();
    }
    mode.close();
  }

  /** The real server, started on first use; skips or fails when the binary is missing. */
  private RedisServerProcess redis() throws Exception {
    if (redis == null) {
      redis = RedisServerProcess.start(RealServers.require(RedisServerProcess.BINARY, RedisServerProcess.DEBIAN_PACKAGE));
    }
    return redis;
  }

  private Transport connectToRedis() throws Exception {
    return mode.connect(redis().address(), TEN_SECONDS);
  }

  // ---- against a real redis-server ----

  @Test
  public void simpleStringIntegerAndBulkRepliesComeBackTyped() throws Exception {
    try (Transport transport = connectToRedis()) {
      RedisClient client = new RedisClient(transport);
      assertEquals("PONG", client.call("PING"));
      assertEquals("OK", client.call("SET", "types:s", "héllo"));
      assertArrayEquals("héllo".getBytes(UTF_8), (byte[]) client.call("GET", "types:s"));
      assertEquals(1L, client.call("INCR", "types:n"));
      assertEquals(42L, client.callLong("INCRBY", "types:n", "41"));
      assertEquals("héllo", client.callString("GET", "types:s"));
    }
  }

  @Test
  public void nullBulkStringIsNull() throws Exception {
    try (Transport transport = connectToRedis()) {
      RedisClient client = new RedisClient(transport);
      assertNull(client.call("GET", "no:such:key"));
      assertNull(client.callString("GET", "no:such:key"));
    }
  }

  @Test
  public void errorReplyThrowsWithTheServersMessageAndTheClientCarriesOn() throws Exception {
    try (Transport transport = connectToRedis()) {
      RedisClient client = new RedisClient(transport);
      RedisErrorException e = assertThrows(RedisErrorException.class, () -> client.call("NOSUCHCOMMAND", "x"));
      assertEquals("ERR", e.errorCode());
      assertTrue(e.getMessage().contains("unknown command"), e.getMessage());
      client.call("SET", "err:s", "v");
      RedisErrorException wrongType = assertThrows(RedisErrorException.class, () -> client.call("INCR", "err:s"));
      assertEquals("ERR", wrongType.errorCode());
      client.call("RPUSH", "err:l", "a");
      assertEquals("WRONGTYPE", assertThrows(RedisErrorException.class, () -> client.call("GET", "err:l")).errorCode());
      assertEquals("PONG", client.call("PING"));
    }
  }

  @Test
  public void arraysNestedAndNullComeBackAsListsAndNull() throws Exception {
    try (Transport transport = connectToRedis()) {
      RedisClient client = new RedisClient(transport);
      client.call("DEL", "arr:l");
      client.call("RPUSH", "arr:l", "a", "b", "c");
      List<?> range = (List<?>) client.call("LRANGE", "arr:l", "0", "-1");
      assertEquals(3, range.size());
      assertArrayEquals("b".getBytes(UTF_8), (byte[]) range.get(1));
      assertEquals(List.of(), client.call("LRANGE", "arr:empty", "0", "-1"));

      Object nested = client.call("EVAL", "return {1, {2, 'x', {}}, 'y'}", "0");
      List<?> outer = (List<?>) nested;
      assertEquals(1L, outer.get(0));
      List<?> inner = (List<?>) outer.get(1);
      assertEquals(2L, inner.get(0));
      assertArrayEquals("x".getBytes(UTF_8), (byte[]) inner.get(1));
      assertEquals(List.of(), inner.get(2));
      assertArrayEquals("y".getBytes(UTF_8), (byte[]) outer.get(2));

      // BLPOP that times out answers with the null array in RESP2.
      assertNull(client.call("BLPOP", "arr:never", "0.05"));
    }
  }

  @Test
  public void bulkStringsAreBinarySafe() throws Exception {
    byte[] value = new byte[256];
    for (int i = 0; i < value.length; i++) {
      value[i] = (byte) i;
    }
    try (Transport transport = connectToRedis()) {
      RedisClient client = new RedisClient(transport);
      byte[] key = "bin:\r\n\0key".getBytes(UTF_8);
      assertEquals("OK", client.call("SET".getBytes(UTF_8), key, value));
      assertArrayEquals(value, (byte[]) client.call("GET".getBytes(UTF_8), key));
      assertEquals("OK", client.call("SET", "bin:empty", ""));
      assertArrayEquals(new byte[0], (byte[]) client.call("GET", "bin:empty"));
    }
  }

  @Test
  public void pipelineSendsAllCommandsThenReadsEveryReplyInOrder() throws Exception {
    try (Transport transport = connectToRedis()) {
      RedisClient client = new RedisClient(transport);
      client.call("DEL", "pipe:n");
      List<String[]> commands = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        commands.add(new String[] {"INCR", "pipe:n"});
      }
      commands.add(new String[] {"NOSUCHCOMMAND"});
      commands.add(new String[] {"GET", "pipe:n"});
      List<Object> replies = client.pipeline(commands);
      assertEquals(102, replies.size());
      for (int i = 0; i < 100; i++) {
        assertEquals((long) i + 1, replies.get(i));
      }
      assertInstanceOf(RedisErrorException.class, replies.get(100));
      assertArrayEquals("100".getBytes(UTF_8), (byte[]) replies.get(101));
      assertEquals(0, client.pendingReplies());
    }
  }

  @Test
  public void sendThenReadReplyPipelinesByHand() throws Exception {
    try (Transport transport = connectToRedis()) {
      RedisClient client = new RedisClient(transport);
      client.send("SET", "hand:k", "v");
      client.send("GET", "hand:k");
      assertEquals(2, client.pendingReplies());
      assertThrows(IllegalStateException.class, () -> client.call("PING"));
      client.flush();
      assertEquals("OK", client.readReply());
      assertArrayEquals("v".getBytes(UTF_8), (byte[]) client.readReply());
      assertThrows(IllegalStateException.class, client::readReply);
    }
  }

  @Test
  public void concurrentSessionsEachIncrementTheirOwnKeyAndReadItBack() throws Exception {
    try (Transport transport = connectToRedis()) {
      new RedisClient(transport).call("FLUSHALL");
    }
    List<String> values = mode.runSessions(RedisIncrThenGetSession.class, redis().address(), sessionsAtScale(), TEN_SECONDS);
    assertEquals(sessionsAtScale(), values.size());
    for (int i = 0; i < sessionsAtScale(); i++) {
      assertEquals(RedisIncrThenGetSession.expected(i), values.get(i), "session " + i);
    }
  }

  // ---- against a scripted, misbehaving server ----

  private ScriptedServer scripted(ScriptedServer.Script script, Delivery delivery) throws Exception {
    return ScriptedServer.start(script, delivery);
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void everyReplyTypeParsesWhateverTheDelivery(Delivery delivery) throws Exception {
    ScriptedServer.Script script = ScriptedServer.script()
        .readLines(7 * 5)
        .send("+OK\r\n")
        .send("-ERR bad thing\r\n")
        .send(":-9223372036854775808\r\n")
        .send("$5\r\na\r\nb\0\r\n")
        .send("$-1\r\n")
        .send("*3\r\n:1\r\n*2\r\n$1\r\nx\r\n*-1\r\n$0\r\n\r\n")
        .send("*-1\r\n");
    try (ScriptedServer server = scripted(script, delivery);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      RedisClient client = new RedisClient(transport);
      List<String[]> commands = new ArrayList<>();
      for (int i = 0; i < 7; i++) {
        commands.add(new String[] {"ANY", Integer.toString(i)});
      }
      List<Object> replies = client.pipeline(commands);
      assertEquals("OK", replies.get(0));
      assertEquals("ERR bad thing", ((RedisErrorException) replies.get(1)).getMessage());
      assertEquals(Long.MIN_VALUE, replies.get(2));
      assertArrayEquals("a\r\nb\0".getBytes(UTF_8), (byte[]) replies.get(3));
      assertNull(replies.get(4));
      List<?> array = (List<?>) replies.get(5);
      assertEquals(1L, array.get(0));
      List<?> inner = (List<?>) array.get(1);
      assertArrayEquals("x".getBytes(UTF_8), (byte[]) inner.get(0));
      assertNull(inner.get(1));
      assertArrayEquals(new byte[0], (byte[]) array.get(2));
      assertNull(replies.get(6));
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void replyLineOverTheLimitIsAViolationQuotingIt(Delivery delivery) throws Exception {
    String longLine = "+" + "a".repeat(200) + "\r\n";
    try (ScriptedServer server = scripted(ScriptedServer.script().readLines(3).send(longLine), delivery);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      RedisClient client = new RedisClient(transport, 100, 1024, 16);
      LineTooLongException e = assertThrows(LineTooLongException.class, () -> client.call("PING"));
      assertTrue(e.getMessage().contains("\"+aaaa"), e.getMessage());
      assertTrue(e.getMessage().length() < 200, e.getMessage());
      assertThrows(IllegalStateException.class, () -> client.call("PING"));
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void truncatedBulkStringIsAnEofQuotingWhatCame(Delivery delivery) throws Exception {
    try (ScriptedServer server = scripted(ScriptedServer.script().readLines(5).send("$10\r\nabc").close(), delivery);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      RedisClient client = new RedisClient(transport);
      EOFException e = assertThrows(EOFException.class, () -> client.call("GET", "k"));
      assertTrue(e.getMessage().contains("3 of 10 bytes: \"abc\""), e.getMessage());
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void bulkWithoutItsCrlfIsAViolation(Delivery delivery) throws Exception {
    try (ScriptedServer server = scripted(ScriptedServer.script().readLines(5).send("$3\r\nabcde\r\n"), delivery);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      RedisClient client = new RedisClient(transport);
      ProtocolViolationException e = assertThrows(ProtocolViolationException.class, () -> client.call("GET", "k"));
      assertTrue(e.getMessage().contains("\"de\""), e.getMessage());
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void nonNumericLengthIsAViolationQuotingTheLine(Delivery delivery) throws Exception {
    try (ScriptedServer server = scripted(ScriptedServer.script().readLines(5).send("$1x\r\nabc\r\n"), delivery);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      RedisClient client = new RedisClient(transport);
      ProtocolViolationException e = assertThrows(ProtocolViolationException.class, () -> client.call("GET", "k"));
      assertEquals("non-numeric bulk length: \"$1x\"", e.getMessage());
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void lengthsOverTheLimitsAreRefusedBeforeAllocating(Delivery delivery) throws Exception {
    ScriptedServer.Script script = ScriptedServer.script().readLines(5).send("$2147483647\r\n");
    try (ScriptedServer server = scripted(script, delivery);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      RedisClient client = new RedisClient(transport, 100, 1024, 16);
      ProtocolViolationException e = assertThrows(ProtocolViolationException.class, () -> client.call("GET", "k"));
      assertTrue(e.getMessage().startsWith("bulk length over the limit of 1024 bytes: \"$2147483647\""), e.getMessage());
    }
    try (ScriptedServer server = scripted(ScriptedServer.script().readLines(3).send("*17\r\n"), delivery);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      RedisClient client = new RedisClient(transport, 100, 1024, 16);
      ProtocolViolationException e = assertThrows(ProtocolViolationException.class, () -> client.call("KEYS"));
      assertTrue(e.getMessage().contains("\"*17\""), e.getMessage());
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void unexpectedReplyTypeIsAViolation(Delivery delivery) throws Exception {
    ScriptedServer.Script script = ScriptedServer.script().readLines(5).send("%1\r\n+a\r\n+b\r\n");
    try (ScriptedServer server = scripted(script, delivery);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      RedisClient client = new RedisClient(transport);
      ProtocolViolationException e = assertThrows(ProtocolViolationException.class, () -> client.call("HGETALL", "k"));
      assertEquals("unexpected reply type \"%\": \"%1\"", e.getMessage());
    }
    // A well-formed reply of the wrong type for a typed call.
    try (ScriptedServer server = scripted(ScriptedServer.script().readLines(5).send("$3\r\nabc\r\n"), delivery);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      RedisClient client = new RedisClient(transport);
      ProtocolViolationException e = assertThrows(ProtocolViolationException.class, () -> client.callLong("INCR", "k"));
      assertEquals("expected an integer reply to INCR but got bulk string \"abc\"", e.getMessage());
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void serverClosingMidReplyIsAnEofQuotingThePartialLine(Delivery delivery) throws Exception {
    ScriptedServer.Script script = ScriptedServer.script().readLines(3).send("*3\r\n:1\r\n:2").close();
    try (ScriptedServer server = scripted(script, delivery);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      RedisClient client = new RedisClient(transport);
      EOFException e = assertThrows(EOFException.class, () -> client.call("KEYS"));
      assertTrue(e.getMessage().contains("\":2\""), e.getMessage());
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void arraysNestedTooDeepAreAViolation(Delivery delivery) throws Exception {
    String deep = "*1\r\n".repeat(RedisClient.MAX_NESTING + 1) + ":1\r\n";
    try (ScriptedServer server = scripted(ScriptedServer.script().readLines(3).send(deep), delivery);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      RedisClient client = new RedisClient(transport);
      ProtocolViolationException e = assertThrows(ProtocolViolationException.class, () -> client.call("KEYS"));
      assertTrue(e.getMessage().startsWith("arrays nested deeper than"), e.getMessage());
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void serverStallingMidReplyTimesOutInsteadOfHanging(Delivery delivery) throws Exception {
    ScriptedServer.Script script = ScriptedServer.script().readLines(5).send("$5\r\nab").stall(Duration.ofSeconds(5));
    try (ScriptedServer server = scripted(script, delivery);
        Transport transport = mode.connect(server.address(), Timeout.of(300, TimeUnit.MILLISECONDS))) {
      RedisClient client = new RedisClient(transport);
      assertThrows(TransportTimeoutException.class, () -> client.call("GET", "k"));
      assertFalse(transport.isOpen());
    }
  }

  @Test
  public void commandsAreWrittenAsRespArraysOfBulkStrings() throws Exception {
    ScriptedServer.Script script = ScriptedServer.script()
        .expectLine("*3").expectLine("$3").expectLine("SET").expectLine("$1").expectLine("k")
        .expectLine("$6").expectLine("wörld")
        .send("+OK\r\n");
    try (ScriptedServer server = scripted(script, Delivery.WHOLE)) {
      try (Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
        assertEquals("OK", new RedisClient(transport).call("SET", "k", "wörld"));
      }
      server.awaitScript(SCRIPT_WAIT);
    }
  }
}
