package io.weft.protocols.pg;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.transport.ProtocolViolationException;
import org.junit.jupiter.api.Test;

/** {@link Scram} against the exchange of RFC 7677 section 3, and what it refuses. */
class ScramTest {
  private static final String CLIENT_NONCE = "rOprNGfwEbeRWgbNEkqO";
  private static final String SERVER_FIRST =
      "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";

  private static Scram rfc() {
    return new Scram("user", "pencil", "n,,", new byte[0], CLIENT_NONCE);
  }

  @Test
  void theRfc7677ExchangeComesOutByteForByte() throws Exception {
    Scram scram = rfc();
    assertEquals("n,,n=user,r=rOprNGfwEbeRWgbNEkqO", new String(scram.clientFirst(), UTF_8));
    assertEquals("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
        + "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", new String(scram.clientFinal(SERVER_FIRST.getBytes(UTF_8)), UTF_8));
    scram.verifyServerFinal("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=".getBytes(UTF_8));
  }

  @Test
  void aWrongServerSignatureIsRefused() throws Exception {
    Scram scram = rfc();
    scram.clientFinal(SERVER_FIRST.getBytes(UTF_8));
    ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
        () -> scram.verifyServerFinal("v=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=".getBytes(UTF_8)));
    assertTrue(e.getMessage().startsWith("SCRAM: the server's signature is wrong"), e.getMessage());
    ProtocolViolationException error = assertThrows(ProtocolViolationException.class,
        () -> scram.verifyServerFinal("e=invalid-proof".getBytes(UTF_8)));
    assertEquals("SCRAM: the server sent an error invalid-proof: \"e=invalid-proof\"", error.getMessage());
  }

  @Test
  void anIterationCountOverTheLimitIsRefusedBeforeHashing() {
    String greedy = "r=" + CLIENT_NONCE + "x,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=2147483647";
    ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
        () -> rfc().clientFinal(greedy.getBytes(UTF_8)));
    assertTrue(e.getMessage().startsWith("SCRAM: the server sent an iteration count out of 1..1048576"), e.getMessage());
  }

  @Test
  void channelBindingDataGoesIntoTheClientFinalMessage() throws Exception {
    byte[] binding = {1, 2, 3};
    Scram scram = new Scram("", "pencil", "p=tls-server-end-point,,", binding, CLIENT_NONCE);
    String last = new String(scram.clientFinal(SERVER_FIRST.getBytes(UTF_8)), UTF_8);
    String header = java.util.Base64.getEncoder().encodeToString("p=tls-server-end-point,,\u0001\u0002\u0003".getBytes(UTF_8));
    assertTrue(last.startsWith("c=" + header + ",r="), last);
  }

  @Test
  void md5IsMd5OfTheHexMd5OfPasswordAndUserThenTheSalt() {
    // md5hex(md5hex("secret" + "alice") + salt), worked out independently (Python's hashlib).
    assertEquals("md598a0412b9c31436fc53776e863350083", Authentication.md5("alice", "secret", new byte[] {1, 2, 3, 4}));
  }
}
