package io.weft.protocols.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.weft.protocols.PerModeTest;
import io.weft.protocols.ModeCase;
import io.weft.protocols.RealServers;
import io.weft.protocols.SessionMode;
import io.weft.testsupport.RedisServerProcess;
import io.weft.testsupport.ScriptedServer;
import io.weft.testsupport.ScriptedServer.Delivery;
import io.weft.transport.LineTooLongException;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.TransportTimeoutException;
import java.io.EOFException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link RedisClient} against a real {@code redis-server} and against a scripted misbehaving one,
 * in every mode ({@link ModeCase}, one invocation of the class each). Every client conversation
 * is a {@link SessionTask} run through the mode's runner (the nested classes below, each after
 * its test), so it runs as the mode runs sessions: on the test thread, on a thread, or as a
 * continuation. Every scripted test runs with whole and with one-byte-at-a-time delivery.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("modes")
class RedisClientTest extends PerModeTest {
  /** Every mode, with as many sessions at scale as it and the real server take here. */
  static Stream<ModeCase> modes() {
    return ModeCase.all(200, 500, 2000, 2000);
  }

  protected static final Timeout TEN_SECONDS = Timeout.of(10, TimeUnit.SECONDS);
  private static final Timeout SHORT = Timeout.of(300, TimeUnit.MILLISECONDS);
  private static final Duration SCRIPT_WAIT = Duration.ofSeconds(10);


  private RedisServerProcess redis;

  @AfterAll
  void closeAll() {
    if (redis != null) {
      redis.close();
    }
  }

  /** The real server, started on first use; skips or fails when the binary is missing. */
  private RedisServerProcess redis() throws Exception {
    if (redis == null) {
      redis = RedisServerProcess.start(RealServers.require(RedisServerProcess.BINARY, RedisServerProcess.DEBIAN_PACKAGE));
    }
    return redis;
  }

  private <T> T runAgainstRedis(Class<? extends SessionTask<T>> task) throws Exception {
    return mode.run(task, redis().address(), TEN_SECONDS);
  }

  private <T> T runAgainst(ScriptedServer.Script script, Delivery delivery, Class<? extends SessionTask<T>> task,
      Object... args) throws Exception {
    try (ScriptedServer server = ScriptedServer.start(script, delivery)) {
      return mode.run(task, server.address(), TEN_SECONDS, args);
    }
  }

  /** A session that checks everything itself; its result is of no interest. */
  abstract static class Checks implements SessionTask<Boolean> {
    @Override
    public final Boolean run(Transport transport, int index) throws Exception {
      check(new RedisClient(transport));
      return true;
    }

    abstract void check(RedisClient client) throws Exception;
  }

  // ---- against a real redis-server ----

  @Test
  public void simpleStringIntegerAndBulkRepliesComeBackTyped() throws Exception {
    runAgainstRedis(TypedReplies.class);
  }

  public static final class TypedReplies extends Checks {
    @Override
    void check(RedisClient client) throws Exception {
      client.call("DEL", "types:n");
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
    runAgainstRedis(NullBulk.class);
  }

  public static final class NullBulk extends Checks {
    @Override
    void check(RedisClient client) throws Exception {
      assertNull(client.call("GET", "no:such:key"));
      assertNull(client.callString("GET", "no:such:key"));
    }
  }

  @Test
  public void errorReplyThrowsWithTheServersMessageAndTheClientCarriesOn() throws Exception {
    runAgainstRedis(ErrorReplies.class);
  }

  public static final class ErrorReplies extends Checks {
    @Override
    void check(RedisClient client) throws Exception {
      client.call("DEL", "err:s", "err:l");
      try {
        client.call("NOSUCHCOMMAND", "x");
        fail("an unknown command was accepted");
      } catch (RedisErrorException e) {
        assertEquals("ERR", e.errorCode());
        assertTrue(e.getMessage().contains("unknown command"), e.getMessage());
      }
      client.call("SET", "err:s", "v");
      try {
        client.call("INCR", "err:s");
        fail("INCR of a string was accepted");
      } catch (RedisErrorException e) {
        assertEquals("ERR", e.errorCode());
      }
      client.call("RPUSH", "err:l", "a");
      try {
        client.call("GET", "err:l");
        fail("GET of a list was accepted");
      } catch (RedisErrorException e) {
        assertEquals("WRONGTYPE", e.errorCode());
      }
      assertEquals("PONG", client.call("PING"));
    }
  }

  @Test
  public void arraysNestedAndNullComeBackAsListsAndNull() throws Exception {
    runAgainstRedis(NestedArrays.class);
  }

  public static final class NestedArrays extends Checks {
    @Override
    void check(RedisClient client) throws Exception {
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
    runAgainstRedis(BinarySafe.class);
  }

  public static final class BinarySafe extends Checks {
    @Override
    void check(RedisClient client) throws Exception {
      byte[] value = new byte[256];
      for (int i = 0; i < value.length; i++) {
        value[i] = (byte) i;
      }
      byte[] key = "bin:\r\n\0key".getBytes(UTF_8);
      assertEquals("OK", client.call("SET".getBytes(UTF_8), key, value));
      assertArrayEquals(value, (byte[]) client.call("GET".getBytes(UTF_8), key));
      assertEquals("OK", client.call("SET", "bin:empty", ""));
      assertArrayEquals(new byte[0], (byte[]) client.call("GET", "bin:empty"));
    }
  }

  @Test
  public void pipelineSendsAllCommandsThenReadsEveryReplyInOrder() throws Exception {
    runAgainstRedis(Pipeline.class);
  }

  public static final class Pipeline extends Checks {
    @Override
    void check(RedisClient client) throws Exception {
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
    runAgainstRedis(PipelineByHand.class);
  }

  public static final class PipelineByHand extends Checks {
    @Override
    void check(RedisClient client) throws Exception {
      client.send("SET", "hand:k", "v");
      client.send("GET", "hand:k");
      assertEquals(2, client.pendingReplies());
      try {
        client.call("PING");
        fail("call with replies pending");
      } catch (IllegalStateException expected) {
        // replies are pending
      }
      client.flush();
      assertEquals("OK", client.readReply());
      assertArrayEquals("v".getBytes(UTF_8), (byte[]) client.readReply());
      try {
        client.readReply();
        fail("readReply with no reply pending");
      } catch (IllegalStateException expected) {
        // nothing is pending
      }
    }
  }

  @Test
  public void concurrentSessionsEachIncrementTheirOwnKeyAndReadItBack() throws Exception {
    // One descriptor per session here; redis-server has its own.
    SessionMode.requireFileDescriptors(modeCase.sessionsAtScale());
    runAgainstRedis(FlushAll.class);
    List<String> values = mode.runSessions(RedisIncrThenGetSession.class, redis().address(), modeCase.sessionsAtScale(), TEN_SECONDS);
    assertEquals(modeCase.sessionsAtScale(), values.size());
    for (int i = 0; i < modeCase.sessionsAtScale(); i++) {
      assertEquals(RedisIncrThenGetSession.expected(i), values.get(i), "session " + i);
    }
  }

  public static final class FlushAll extends Checks {
    @Override
    void check(RedisClient client) throws Exception {
      assertEquals("OK", client.call("FLUSHALL"));
    }
  }

  // ---- against a scripted, misbehaving server ----

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
    runAgainst(script, delivery, EveryReplyType.class);
  }

  public static final class EveryReplyType extends Checks {
    @Override
    void check(RedisClient client) throws Exception {
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
    runAgainst(ScriptedServer.script().readLines(3).send(longLine), delivery, LongLine.class);
  }

  public static final class LongLine implements SessionTask<Boolean> {
    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      RedisClient client = new RedisClient(transport, 100, 1024, 16);
      try {
        client.call("PING");
        fail("a 200-byte line passed a 100-byte limit");
      } catch (LineTooLongException e) {
        assertTrue(e.getMessage().contains("\"+aaaa"), e.getMessage());
        assertTrue(e.getMessage().length() < 200, e.getMessage());
      }
      try {
        client.call("PING");
        fail("the client carried on after a violation");
      } catch (IllegalStateException expected) {
        // the connection's framing is lost
      }
      return true;
    }
  }

  /** Sends {@code constructorArgs} as one command and returns the reply; for failure tests. */
  public static final class OneCall implements SessionTask<Object> {
    private final String[] command;

    public OneCall(String command) {
      this.command = command.split(" ");
    }

    @Override
    public Object run(Transport transport, int index) throws Exception {
      return new RedisClient(transport).call(command);
    }
  }

  /** Like {@link OneCall}, with the small limits of {@code new RedisClient(t, 100, 1024, 16)}. */
  public static final class OneCallSmallLimits implements SessionTask<Object> {
    private final String[] command;

    public OneCallSmallLimits(String command) {
      this.command = command.split(" ");
    }

    @Override
    public Object run(Transport transport, int index) throws Exception {
      return new RedisClient(transport, 100, 1024, 16).call(command);
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void truncatedBulkStringIsAnEofQuotingWhatCame(Delivery delivery) {
    EOFException e = assertThrows(EOFException.class,
        () -> runAgainst(ScriptedServer.script().readLines(5).send("$10\r\nabc").close(), delivery, OneCall.class, "GET k"));
    assertTrue(e.getMessage().contains("3 of 10 bytes: \"abc\""), e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void bulkWithoutItsCrlfIsAViolation(Delivery delivery) {
    ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
        () -> runAgainst(ScriptedServer.script().readLines(5).send("$3\r\nabcde\r\n"), delivery, OneCall.class, "GET k"));
    assertTrue(e.getMessage().contains("\"de\""), e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void nonNumericLengthIsAViolationQuotingTheLine(Delivery delivery) {
    ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
        () -> runAgainst(ScriptedServer.script().readLines(5).send("$1x\r\nabc\r\n"), delivery, OneCall.class, "GET k"));
    assertEquals("non-numeric bulk length: \"$1x\"", e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void lengthsOverTheLimitsAreRefusedBeforeAllocating(Delivery delivery) {
    ProtocolViolationException bulk = assertThrows(ProtocolViolationException.class,
        () -> runAgainst(ScriptedServer.script().readLines(5).send("$2147483647\r\n"), delivery,
            OneCallSmallLimits.class, "GET k"));
    assertTrue(bulk.getMessage().startsWith("bulk length over the limit of 1024 bytes: \"$2147483647\""), bulk.getMessage());
    ProtocolViolationException array = assertThrows(ProtocolViolationException.class,
        () -> runAgainst(ScriptedServer.script().readLines(3).send("*17\r\n"), delivery, OneCallSmallLimits.class, "KEYS"));
    assertTrue(array.getMessage().contains("\"*17\""), array.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void unexpectedReplyTypeIsAViolation(Delivery delivery) throws Exception {
    ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
        () -> runAgainst(ScriptedServer.script().readLines(5).send("%1\r\n+a\r\n+b\r\n"), delivery,
            OneCall.class, "HGETALL k"));
    assertEquals("unexpected reply type \"%\": \"%1\"", e.getMessage());
    // A well-formed reply of the wrong type for a typed call.
    ProtocolViolationException typed = assertThrows(ProtocolViolationException.class,
        () -> runAgainst(ScriptedServer.script().readLines(5).send("$3\r\nabc\r\n"), delivery, IncrK.class));
    assertEquals("expected an integer reply to INCR but got bulk string \"abc\"", typed.getMessage());
  }

  public static final class IncrK implements SessionTask<Long> {
    @Override
    public Long run(Transport transport, int index) throws Exception {
      return new RedisClient(transport).callLong("INCR", "k");
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void serverClosingMidReplyIsAnEofQuotingThePartialLine(Delivery delivery) {
    EOFException e = assertThrows(EOFException.class,
        () -> runAgainst(ScriptedServer.script().readLines(3).send("*3\r\n:1\r\n:2").close(), delivery, OneCall.class, "KEYS"));
    assertTrue(e.getMessage().contains("\":2\""), e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void arraysNestedTooDeepAreAViolation(Delivery delivery) {
    String deep = "*1\r\n".repeat(RedisClient.MAX_NESTING + 1) + ":1\r\n";
    ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
        () -> runAgainst(ScriptedServer.script().readLines(3).send(deep), delivery, OneCall.class, "KEYS"));
    assertTrue(e.getMessage().startsWith("arrays nested deeper than"), e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void serverStallingMidReplyTimesOutInsteadOfHanging(Delivery delivery) throws Exception {
    ScriptedServer.Script script = ScriptedServer.script().readLines(5).send("$5\r\nab").stall(Duration.ofSeconds(5));
    try (ScriptedServer server = ScriptedServer.start(script, delivery)) {
      assertEquals(true, mode.run(Stalled.class, server.address(), SHORT));
    }
  }

  public static final class Stalled implements SessionTask<Boolean> {
    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      try {
        new RedisClient(transport).call("GET", "k");
        fail("a stalled reply came back");
      } catch (TransportTimeoutException expected) {
        assertFalse(transport.isOpen());
      }
      return true;
    }
  }

  @Test
  public void commandsAreWrittenAsRespArraysOfBulkStrings() throws Exception {
    ScriptedServer.Script script = ScriptedServer.script()
        .expectLine("*3").expectLine("$3").expectLine("SET").expectLine("$1").expectLine("k")
        .expectLine("$6").expectLine("wörld")
        .send("+OK\r\n");
    try (ScriptedServer server = ScriptedServer.start(script, Delivery.WHOLE)) {
      assertEquals("OK", mode.run(OneCall.class, server.address(), TEN_SECONDS, "SET k wörld"));
      server.awaitScript(SCRIPT_WAIT);
    }
  }
}
