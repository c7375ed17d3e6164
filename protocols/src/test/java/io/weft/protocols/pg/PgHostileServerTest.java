package io.weft.protocols.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.protocols.PerModeTest;
import io.weft.protocols.ModeCase;
import io.weft.protocols.SessionMode;
import io.weft.testsupport.ScriptedServer;
import io.weft.testsupport.ScriptedServer.Delivery;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link PgClient} against a scripted hostile server, in every mode, with whole and
 * one-byte-at-a-time delivery: claimed lengths far past what is sent, authentication out of
 * order, lies about TLS. Each case must end in the same typed failure with the same message, and
 * never in a large allocation or a hang.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("modes")
class PgHostileServerTest extends PerModeTest {
  /** Every mode: SYNC, THREADS, VIRTUAL_THREADS, and continuations over MINA and over Netty. */
  static Stream<ModeCase> modes() {
    return Stream.concat(ModeCase.all(1, 1, 1, 1),
        Stream.of(new ModeCase("CONTINUATIONS(1)/Netty", () -> SessionMode.continuationsOverNetty(1), 1)));
  }

  private static final Timeout TEN_SECONDS = Timeout.of(10, TimeUnit.SECONDS);


  /** The StartupMessage the client sends as user "u" to database "d". */
  static int startupLength() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("user", "u");
    p.put("database", "d");
    p.put("client_encoding", "UTF8");
    Frontend.Message m = new Frontend.Message(-1).int32(Frontend.PROTOCOL_3_0);
    for (Map.Entry<String, String> e : p.entrySet()) {
      m.cstring(e.getKey()).cstring(e.getValue());
    }
    return m.int8(0).toBytes().length;
  }

  /** A backend message: type, length counting itself, body. */
  static byte[] msg(char type, byte[] body) {
    return ByteBuffer.allocate(5 + body.length).put((byte) type).putInt(body.length + 4).put(body).array();
  }

  static byte[] auth(int code, byte[] rest) {
    return msg('R', ByteBuffer.allocate(4 + rest.length).putInt(code).put(rest).array());
  }

  static byte[] cstrings(String... strings) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (String s : strings) {
      out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
      out.write(0);
    }
    return out.toByteArray();
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  /** The client's SASLInitialResponse for SCRAM-SHA-256 without binding: its nonce is 24 base64 characters. */
  static final int SASL_INITIAL_LENGTH = 1 + 4 + "SCRAM-SHA-256".length() + 1 + 4 + "n,,n=,r=".length() + 24;

  static final byte[] READY = concat(auth(0, new byte[0]), msg('Z', new byte[] {'I'}));

  private String run(ScriptedServer.Script script, Delivery delivery, String tls) throws Exception {
    try (ScriptedServer server = ScriptedServer.start(script, delivery)) {
      return mode.run(Connect.class, server.address(), TEN_SECONDS, tls);
    }
  }

  /** Connects as "u" to "d" with password "p" and TLS as said, runs SELECT 1; says how it ended. */
  public static final class Connect implements SessionTask<String> {
    private final String tls;

    public Connect(String tls) {
      this.tls = tls;
    }

    @Override
    public String run(Transport transport, int index) throws Exception {
      try {
        PgClient pg = PgClient.connect(transport, PgOptions.builder("u").database("d").password("p")
            .messageLimit(1 << 20)
            .tls(PgOptions.TlsMode.valueOf(tls), io.weft.transport.TlsSettings.defaults()).build());
        pg.simpleQuery("SELECT 1");
        return "ok";
      } catch (java.io.IOException e) {
        assertFalse(transport.isOpen(), "the transport is closed after " + e);
        return e.getClass().getSimpleName() + ": " + e.getMessage();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aClaimedLengthOverTheLimitIsRefusedBeforeReadingIt(Delivery delivery) throws Exception {
    byte[] huge = {'R', 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0, 0, 0, 0};
    assertEquals("ProtocolViolationException: message 'R' of 2147483643 bytes over the limit of 1048576 bytes",
        run(ScriptedServer.script().skipBytes(startupLength()).send(huge), delivery, "DISABLE"));
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aClaimedLengthUnderTheLimitThatNeverArrivesIsAnEof(Delivery delivery) throws Exception {
    byte[] claim = concat(new byte[] {'R', 0, 0x0f, 0, 4}, "0123456789".getBytes(StandardCharsets.US_ASCII));
    assertEquals("EOFException: end of stream after 10 of a 983040-byte frame",
        run(ScriptedServer.script().skipBytes(startupLength()).send(claim).close(), delivery, "DISABLE"));
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void authenticationOkInTheMiddleOfScramIsRefused(Delivery delivery) throws Exception {
    ScriptedServer.Script script = ScriptedServer.script().skipBytes(startupLength())
        .send(auth(10, cstrings("SCRAM-SHA-256", "")))
        .skipBytes(SASL_INITIAL_LENGTH)
        .send(READY);
    assertEquals("ProtocolViolationException: AuthenticationOk before the server finished SCRAM: it never proved"
        + " it knows the password", run(script, delivery, "DISABLE"));
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void scramStepsOutOfOrderAreRefused(Delivery delivery) throws Exception {
    ScriptedServer.Script script = ScriptedServer.script().skipBytes(startupLength())
        .send(auth(10, cstrings("SCRAM-SHA-256", "")))
        .skipBytes(SASL_INITIAL_LENGTH)
        .send(auth(12, "v=AAAA".getBytes(StandardCharsets.US_ASCII)));
    assertEquals("ProtocolViolationException: SASLFinal out of order: SCRAM step 1", run(script, delivery, "DISABLE"));
    ScriptedServer.Script early = ScriptedServer.script().skipBytes(startupLength())
        .send(auth(11, "r=x,s=AAAA,i=1".getBytes(StandardCharsets.US_ASCII)));
    assertEquals("ProtocolViolationException: SASLContinue out of order: SCRAM step 0", run(early, delivery, "DISABLE"));
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aServerNonceThatDoesNotExtendTheClientsIsRefused(Delivery delivery) throws Exception {
    ScriptedServer.Script script = ScriptedServer.script().skipBytes(startupLength())
        .send(auth(10, cstrings("SCRAM-SHA-256", "")))
        .skipBytes(SASL_INITIAL_LENGTH)
        .send(auth(11, "r=someoneelse,s=AAAA,i=4096".getBytes(StandardCharsets.US_ASCII)));
    String outcome = run(script, delivery, "DISABLE");
    assertTrue(outcome.startsWith("ProtocolViolationException: SCRAM: the server sent a server nonce that does not"
        + " extend the client's"), outcome);
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void anUnknownAuthenticationMethodIsRefused(Delivery delivery) throws Exception {
    assertEquals("ProtocolViolationException: authentication method 7 is not supported (trust, cleartext, MD5 and"
        + " SCRAM-SHA-256 are)",
        run(ScriptedServer.script().skipBytes(startupLength()).send(auth(7, new byte[0])), delivery, "DISABLE"));
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aRefusedTlsUpgradeFailsWhenTlsIsRequired(Delivery delivery) throws Exception {
    assertEquals("SSLException: the server refused TLS (it answered SSLRequest with 'N') and TLS is required",
        run(ScriptedServer.script().skipBytes(8).send("N"), delivery, "REQUIRE"));
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aRefusedTlsUpgradeCarriesOnInPlaintextWhenTlsIsPreferred(Delivery delivery) throws Exception {
    ScriptedServer.Script script = ScriptedServer.script().skipBytes(8).send("N").skipBytes(startupLength())
        .send(concat(READY)).skipBytes(1 + 4 + "SELECT 1".length() + 1)
        .send(concat(msg('I', new byte[0]), msg('Z', new byte[] {'I'})));
    assertEquals("ok", run(script, delivery, "PREFER"));
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void plaintextInjectedAfterTheTlsGoAheadIsRefused(Delivery delivery) throws Exception {
    byte[] injected = concat("S".getBytes(StandardCharsets.US_ASCII), READY);
    // The server stays open: a close would race the injected bytes to the client.
    String outcome = run(ScriptedServer.script().skipBytes(8).send(injected).stall(java.time.Duration.ofSeconds(20)),
        delivery, "REQUIRE");
    // Delivered one byte at a time, the 'S' may be read before the rest arrives: then the
    // handshake meets plaintext instead, and fails as a handshake.
    assertTrue(outcome.startsWith("StartTlsInjectionException") || outcome.startsWith("TlsHandshakeException"),
        outcome);
    if (delivery == Delivery.WHOLE) {
      assertTrue(outcome.startsWith("StartTlsInjectionException"), outcome);
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aDataRowThatClaimsMoreThanItsMessageHoldsIsAViolation(Delivery delivery) throws Exception {
    byte[] rowDescription = msg('T', concat(new byte[] {0, 1}, cstrings("a"), new byte[18]));
    byte[] row = msg('D', new byte[] {0, 1, 0x7f, 0, 0, 0, 'x'});
    ScriptedServer.Script script = ScriptedServer.script().skipBytes(startupLength()).send(READY)
        .skipBytes(1 + 4 + "SELECT 1".length() + 1).send(concat(rowDescription, row));
    assertEquals("ProtocolViolationException: message 'D' cut short: 2130706432 bytes needed, 1 left",
        run(script, delivery, "DISABLE"));
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aRowDescriptionOverTheFieldLimitIsRefused(Delivery delivery) throws Exception {
    byte[] rowDescription = msg('T', new byte[] {0x7f, (byte) 0xff});
    ScriptedServer.Script script = ScriptedServer.script().skipBytes(startupLength()).send(READY)
        .skipBytes(1 + 4 + "SELECT 1".length() + 1).send(rowDescription);
    assertEquals("ProtocolViolationException: RowDescription of 32767 fields, over the limit of 1664",
        run(script, delivery, "DISABLE"));
  }
}
