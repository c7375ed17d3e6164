package io.weft.protocols.parsing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.weft.protocols.redis.RedisClient;
import io.weft.transport.ProtocolViolationException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The common replies' edges, with their exact messages: integers ({@code :-0}, the extremes, one
 * past them, a sign or a space that RESP does not write), status lines, and bulk strings cut short
 * in the body or the CRLF, or followed by the wrong two bytes. Whatever makes these replies cheaper
 * must keep every one of these answers.
 */
class RedisReplyEdgesTest {

  private static Object reply(Delivery delivery, String script) throws IOException {
    return new RedisClient(delivery.of(script)).call("X");
  }

  private static String failure(Delivery delivery, String script, Class<? extends IOException> type) {
    return assertThrows(type, () -> reply(delivery, script)).getMessage();
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void integersAtTheirEdgesParse(Delivery delivery) throws Exception {
    assertEquals(0L, reply(delivery, ":0\r\n"));
    assertEquals(0L, reply(delivery, ":-0\r\n"));
    assertEquals(-1L, reply(delivery, ":-1\r\n"));
    assertEquals(Long.MAX_VALUE, reply(delivery, ":9223372036854775807\r\n"));
    assertEquals(Long.MIN_VALUE, reply(delivery, ":-9223372036854775808\r\n"));
    assertEquals(7L, reply(delivery, ":007\r\n"));
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void integersPastTheirEdgesOrNotWrittenAsRespWritesThemAreRefusedQuotingTheLine(Delivery delivery) {
    assertEquals("integer reply out of range: \":9223372036854775808\"",
        failure(delivery, ":9223372036854775808\r\n", ProtocolViolationException.class));
    assertEquals("integer reply out of range: \":-9223372036854775809\"",
        failure(delivery, ":-9223372036854775809\r\n", ProtocolViolationException.class));
    assertEquals("integer reply out of range: \":99999999999999999999\"",
        failure(delivery, ":99999999999999999999\r\n", ProtocolViolationException.class));
    assertEquals("non-numeric integer reply: \":+1\"", failure(delivery, ":+1\r\n", ProtocolViolationException.class));
    assertEquals("non-numeric integer reply: \": 1\"", failure(delivery, ": 1\r\n", ProtocolViolationException.class));
    assertEquals("non-numeric integer reply: \":1 \"", failure(delivery, ":1 \r\n", ProtocolViolationException.class));
    assertEquals("non-numeric integer reply: \":\"", failure(delivery, ":\r\n", ProtocolViolationException.class));
    assertEquals("non-numeric integer reply: \":-\"", failure(delivery, ":-\r\n", ProtocolViolationException.class));
    assertEquals("non-numeric integer reply: \":1\\r2\"", failure(delivery, ":1\r2\r\n", ProtocolViolationException.class));
    assertEquals("non-numeric integer reply: \":\u00e9\"", failure(delivery, ":\u00e9\r\n", ProtocolViolationException.class));
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void statusLinesAreReturnedAsTheyCame(Delivery delivery) throws Exception {
    Object ok = reply(delivery, "+OK\r\n");
    assertEquals("OK", ok);
    // Redis's commonest reply costs no String of its own.
    assertSame("OK", ok);
    assertEquals("OKAY", reply(delivery, "+OKAY\r\n"));
    assertEquals("", reply(delivery, "+\r\n"));
    assertEquals("ok \u00e9", reply(delivery, "+ok \u00e9\r\n"));
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void bulkLengthsAtAndPastTheirEdges(Delivery delivery) throws Exception {
    assertArrayEquals(new byte[0], (byte[]) reply(delivery, "$0\r\n\r\n"));
    assertEquals(null, reply(delivery, "$-1\r\n"));
    assertEquals("negative zero bulk length: \"$-0\"", failure(delivery, "$-0\r\n", ProtocolViolationException.class));
    assertEquals("negative bulk length: \"$-2\"", failure(delivery, "$-2\r\n", ProtocolViolationException.class));
    assertEquals("non-numeric bulk length: \"$+5\"", failure(delivery, "$+5\r\n", ProtocolViolationException.class));
    assertEquals("bulk length out of range: \"$9223372036854775808\"",
        failure(delivery, "$9223372036854775808\r\n", ProtocolViolationException.class));
    assertEquals("bulk length over the limit of 67108864 bytes: \"$9223372036854775807\"",
        failure(delivery, "$9223372036854775807\r\n", ProtocolViolationException.class));
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aBulkStringCutShortOrWithoutItsCrlfSaysWhereQuotingWhatCame(Delivery delivery) throws Exception {
    assertArrayEquals("hello".getBytes(StandardCharsets.UTF_8), (byte[]) reply(delivery, "$5\r\nhello\r\n"));
    assertEquals("end of stream in bulk string of 10 bytes after 4 of 10 bytes: \"half\"",
        failure(delivery, "$10\r\nhalf", EOFException.class));
    assertEquals("end of stream in bulk string of 3 bytes after 0 of 3 bytes: \"\"",
        failure(delivery, "$3\r\n", EOFException.class));
    assertEquals("end of stream in CRLF after bulk string of 5 bytes after 0 of 2 bytes: \"\"",
        failure(delivery, "$5\r\nhello", EOFException.class));
    assertEquals("end of stream in CRLF after bulk string of 5 bytes after 1 of 2 bytes: \"\\r\"",
        failure(delivery, "$5\r\nhello\r", EOFException.class));
    assertEquals("expected CRLF after bulk string of 5 bytes but got \"XY\"",
        failure(delivery, "$5\r\nhelloXY", ProtocolViolationException.class));
    assertEquals("expected CRLF after bulk string of 5 bytes but got \"\\n\\r\"",
        failure(delivery, "$5\r\nhello\n\r", ProtocolViolationException.class));
    assertEquals("expected CRLF after bulk string of 5 bytes but got \"\\rX\"",
        failure(delivery, "$5\r\nhello\rX", ProtocolViolationException.class));
  }
}
