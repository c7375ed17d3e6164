package io.weft.protocols.parsing;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.protocols.ModeCase;
import io.weft.protocols.PerModeTest;
import io.weft.protocols.RealServers;
import io.weft.protocols.SessionMode;
import io.weft.testsupport.InMemoryTransport;
import io.weft.testsupport.RedisServerProcess;
import io.weft.testsupport.ScriptedServer;
import io.weft.testsupport.ScriptedServer.Delivery;
import io.weft.transport.LineParser;
import io.weft.transport.LineParsing;
import io.weft.transport.LineTooLongException;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.TransportTimeoutException;
import java.io.EOFException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link LineParsing#parseLine(int, LineParser)} (every transport of the library offers it) in
 * every mode, continuations over MINA and over Netty included, against a real {@code redis-server}
 * and scripted servers on loopback (whole and one byte at a time, so a line arrives split across
 * reads): the parser sees exactly the bytes {@code readLineStrict} would have returned, with the
 * same limit, end-of-stream, line-end and timeout behaviour and messages; its own exceptions come
 * out as they are, each takes its line and leaves the transport open, and the next line reads.
 * (A parser that breaks its contract: {@link ParseLineGuardsTest}.)
 */
@ParameterizedClass(name = "{0}")
@MethodSource("modes")
class ParseLineTest extends PerModeTest {
  static Stream<ModeCase> modes() {
    return Stream.concat(ModeCase.all(1, 1, 1, 1),
        Stream.of(new ModeCase("CONTINUATIONS(1)/Netty", () -> SessionMode.continuationsOverNetty(1), 1)));
  }

  private static final Timeout TEN_SECONDS = Timeout.of(10, TimeUnit.SECONDS);
  private static final Timeout SHORT = Timeout.of(300, TimeUnit.MILLISECONDS);

  private RedisServerProcess redis;

  @AfterAll
  void closeRedis() {
    if (redis != null) {
      redis.close();
    }
  }

  /** The line's bytes as the parser saw them, one char per byte, with where they lay. */
  static final LineParser<String> BYTES = (buf, offset, length) -> new String(buf, offset, length, ISO_8859_1);

  private <T> T runAgainst(ScriptedServer.Script script, Delivery delivery, Class<? extends SessionTask<T>> task,
      Timeout timeout) throws Exception {
    try (ScriptedServer server = ScriptedServer.start(script, delivery)) {
      return mode.run(task, server.address(), timeout);
    }
  }

  @Test
  public void parsesRedisRepliesWhereTheyArrived() throws Exception {
    if (redis == null) {
      redis = RedisServerProcess.start(RealServers.require(RedisServerProcess.BINARY, RedisServerProcess.DEBIAN_PACKAGE));
    }
    assertEquals(List.of("+OK", "3", "4", "+PONG"), mode.run(AgainstRedis.class, redis.address(), TEN_SECONDS));
  }

  public static final class AgainstRedis implements SessionTask<List<String>> {
    @Override
    public List<String> run(Transport transport, int index) throws Exception {
      List<String> seen = new ArrayList<>();
      String key = "parseline:" + System.nanoTime();
      transport.write("*3\r\n$3\r\nSET\r\n$" + key.length() + "\r\n" + key + "\r\n$1\r\n2\r\n");
      transport.flush();
      seen.add(((LineParsing) transport).parseLine(64, BYTES));
      for (int i = 0; i < 2; i++) {
        transport.write("*2\r\n$4\r\nINCR\r\n$" + key.length() + "\r\n" + key + "\r\n");
        transport.flush();
        // A primitive parse: no String of the line.
        long n = ((LineParsing) transport).parseLine(64, (buf, offset, length) -> {
          assertEquals(':', buf[offset]);
          long v = 0;
          for (int j = offset + 1; j < offset + length; j++) {
            v = v * 10 + (buf[j] - '0');
          }
          return v;
        });
        seen.add(Long.toString(n));
      }
      transport.write("*1\r\n$4\r\nPING\r\n");
      transport.flush();
      seen.add(((LineParsing) transport).parseLine(64, BYTES));
      return seen;
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void seesTheBytesReadLineStrictReturnsAtEveryLineEnd(Delivery delivery) throws Exception {
    // CRLF, bare LF, a bare CR inside (part of the line), an empty line, bytes that are no UTF-8,
    // each sent twice: readLineStrict reads the first, parseLine the second.
    String lines = "a1\r\n" + "b22\n" + "c\r3\r\n" + "\r\n" + "\u00e9\u00ff\r\n";
    byte[] twice = (lines.replaceAll("([^\n]*\n)", "$1$1")).getBytes(ISO_8859_1);
    List<String> got = runAgainst(ScriptedServer.script().send(twice).stall(Duration.ofSeconds(5)), delivery,
        SameBytes.class, TEN_SECONDS);
    assertEquals(List.of("a1", "b22", "c\r3", "", "\u00e9\u00ff"), got);
  }

  public static final class SameBytes implements SessionTask<List<String>> {
    @Override
    public List<String> run(Transport transport, int index) throws Exception {
      List<String> seen = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        String strict = transport.readLineStrict(16, ISO_8859_1);
        String parsed = ((LineParsing) transport).parseLine(16, BYTES);
        assertEquals(strict, parsed);
        seen.add(parsed);
      }
      return seen;
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void takesALineOfTheLimitAndRefusesOneByteMoreAsReadLineStrictDoes(Delivery delivery) throws Exception {
    String script = "12345\r\n" + "123456\r\n";
    String got = runAgainst(ScriptedServer.script().send(script).stall(Duration.ofSeconds(5)), delivery,
        AtTheLimit.class, TEN_SECONDS);
    // readLineStrict's message, quoting what has arrived of the line (so far: delivery decides).
    assertTrue(got.startsWith("12345; line longer than 5 bytes: \"123456"), got);
  }

  public static final class AtTheLimit implements SessionTask<String> {
    @Override
    public String run(Transport transport, int index) throws Exception {
      String first = ((LineParsing) transport).parseLine(5, BYTES);
      // No lambda around a read: a continuation cannot pass a suspend through assertThrows.
      try {
        return first + "; no exception: " + ((LineParsing) transport).parseLine(5, BYTES);
      } catch (LineTooLongException e) {
        return first + "; " + e.getMessage();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void endOfStreamInsideALineIsReadLineStrictsEofException(Delivery delivery) throws Exception {
    InMemoryTransport cut = InMemoryTransport.of("abc");
    String strict = assertThrows(EOFException.class, () -> cut.readLineStrict(16)).getMessage();
    assertEquals(strict,
        runAgainst(ScriptedServer.script().send("abc").close(), delivery, CutShort.class, TEN_SECONDS));
  }

  public static final class CutShort implements SessionTask<String> {
    @Override
    public String run(Transport transport, int index) throws Exception {
      try {
        return "no exception: " + ((LineParsing) transport).parseLine(16, BYTES);
      } catch (EOFException e) {
        return e.getMessage();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void aLineThatNeverEndsTimesOutAndClosesAsReadLineStrict(Delivery delivery) throws Exception {
    String got = runAgainst(ScriptedServer.script().send("12").stall(Duration.ofSeconds(5)), delivery, NeverEnds.class,
        SHORT);
    // readLineStrict's message and failure policy (see SocketReadSliceTest and the transports' own tests).
    assertTrue(got.startsWith("open false; read timed out after 300 ms waiting for a line (limit 16 bytes)"), got);
  }

  public static final class NeverEnds implements SessionTask<String> {
    @Override
    public String run(Transport transport, int index) throws Exception {
      try {
        return "no exception: " + ((LineParsing) transport).parseLine(16, BYTES);
      } catch (TransportTimeoutException e) {
        return "open " + transport.isOpen() + "; " + e.getMessage();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void theParsersExceptionComesOutAsItIsAndTheTransportStaysOpen(Delivery delivery) throws Exception {
    assertEquals("not mine: \"bad\"; open true; own true; runtime true; open true; next ok",
        runAgainst(ScriptedServer.script().send("bad\r\nown\r\nrt\r\nok\r\n").stall(Duration.ofSeconds(5)), delivery,
            ParserThrows.class, TEN_SECONDS));
  }

  public static final class ParserThrows implements SessionTask<String> {
    static final IOException OWN = new IOException("own");
    static final IllegalArgumentException RUNTIME = new IllegalArgumentException("runtime");

    @Override
    public String run(Transport transport, int index) throws Exception {
      String first;
      try {
        first = "no exception: " + ((LineParsing) transport).parseLine(16, (buf, offset, length) -> {
          throw new ProtocolViolationException("not mine: " + ProtocolViolationException.quote(buf, offset, length));
        });
      } catch (ProtocolViolationException e) {
        first = e.getMessage();
      }
      boolean open = transport.isOpen();
      IOException own = null;
      try {
        ((LineParsing) transport).parseLine(16, (buf, offset, length) -> {
          throw OWN;
        });
      } catch (IOException e) {
        own = e;
      }
      RuntimeException runtime = null;
      try {
        ((LineParsing) transport).parseLine(16, (buf, offset, length) -> {
          throw RUNTIME;
        });
      } catch (RuntimeException e) {
        runtime = e;
      }
      // Each failed parse took its line: the next one is "ok".
      String next = ((LineParsing) transport).parseLine(16, BYTES);
      return first + "; open " + open + "; own " + (own == OWN) + "; runtime " + (runtime == RUNTIME) + "; open "
          + transport.isOpen() + "; next " + next;
    }
  }
}
