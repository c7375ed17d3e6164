package io.weft.transport.spi;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.transport.TlsRequiredException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link InboundBuffer}'s watch for a TLS alert record at the start of a plaintext stream: the
 * exact shape is refused with {@link TlsRequiredException} by every poll, and every other start,
 * or the same bytes later in the stream, is data.
 */
class InboundBufferTlsAlertTest {
  /** What the JDK's SSLServerSocket sends to a plaintext client: fatal unexpected_message. */
  private static final byte[] UNEXPECTED_MESSAGE = {0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x0a};
  private static final InetSocketAddress PEER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 4433);
  private static final String EXPECTED = "the peer at " + PEER.getHostString() + ":4433 answered with a fatal TLS alert"
      + " (unexpected_message): it expects TLS; connect with TlsSettings or call startTls";

  private static InboundBuffer watching(byte[] first) {
    InboundBuffer buffer = new InboundBuffer(16);
    buffer.expectPlaintextFrom(PEER);
    buffer.append(first, 0, first.length);
    return buffer;
  }

  @Test
  void aLineReadOfAnAlertRecordThrowsNamingPeerAndAlert() {
    TlsRequiredException e = assertThrows(TlsRequiredException.class,
        () -> watching(UNEXPECTED_MESSAGE).pollLine(100, true, UTF_8));
    assertEquals(EXPECTED, e.getMessage());
    assertEquals(10, e.alertDescription());
  }

  @Test
  void aByteReadOfAnAlertRecordThrows() {
    assertThrows(TlsRequiredException.class, () -> watching(UNEXPECTED_MESSAGE).poll(new byte[100], 0, 100));
  }

  @Test
  void aShortFullReadOfAnAlertRecordThrows() {
    assertThrows(TlsRequiredException.class, () -> watching(UNEXPECTED_MESSAGE).pollFully(new byte[2], 0, 2));
  }

  @Test
  void theAlertKeepsBeingReportedUntilTheTransportCloses() {
    InboundBuffer buffer = watching(UNEXPECTED_MESSAGE);
    assertThrows(TlsRequiredException.class, () -> buffer.pollLine(100, false, UTF_8));
    assertThrows(TlsRequiredException.class, () -> buffer.poll(new byte[1], 0, 1));
  }

  @Test
  void aWarningOpenSslProtocolVersionAlertIsNamed() {
    byte[] protocolVersion = {0x15, 0x03, 0x01, 0x00, 0x02, 0x01, 0x46};
    TlsRequiredException e = assertThrows(TlsRequiredException.class,
        () -> watching(protocolVersion).poll(new byte[10], 0, 10));
    assertEquals(70, e.alertDescription());
    assertEquals("the peer at " + PEER.getHostString() + ":4433 answered with a warning TLS alert (protocol_version):"
        + " it expects TLS; connect with TlsSettings or call startTls", e.getMessage());
  }

  @Test
  void anUnknownDescriptionIsNamedByItsCode() {
    byte[] odd = {0x15, 0x03, 0x04, 0x00, 0x02, 0x02, (byte) 0xfe};
    TlsRequiredException e = assertThrows(TlsRequiredException.class, () -> watching(odd).poll(new byte[10], 0, 10));
    assertEquals(254, e.alertDescription());
    assertTrue(e.getMessage().contains("fatal TLS alert (alert 254)"), e.getMessage());
  }

  @Test
  void anIpv6PeerIsBracketed() {
    InboundBuffer buffer = new InboundBuffer(16);
    buffer.expectPlaintextFrom(new InetSocketAddress("::1", 465));
    buffer.append(UNEXPECTED_MESSAGE, 0, 7);
    TlsRequiredException e = assertThrows(TlsRequiredException.class, () -> buffer.poll(new byte[10], 0, 10));
    assertTrue(e.getMessage().startsWith("the peer at [0:0:0:0:0:0:0:1]:465 answered"), e.getMessage());
  }

  /** Each byte of the header changed to a value the shape does not allow: data, handed out as it came. */
  @ParameterizedTest
  @ValueSource(strings = {
      "16 03 03 00 02 02 0a", // a handshake record, not an alert
      "15 02 03 00 02 02 0a", // major version 2
      "15 03 05 00 02 02 0a", // minor version 5
      "15 03 03 01 02 02 0a", // length 258
      "15 03 03 00 03 02 0a", // length 3
      "15 03 03 00 02 00 0a", // level 0
      "15 03 03 00 02 03 0a", // level 3
  })
  void firstBytesOfAnotherShapeAreData(String hex) throws Exception {
    byte[] bytes = hex(hex);
    InboundBuffer buffer = watching(bytes);
    byte[] out = new byte[7];
    assertTrue(buffer.pollFully(out, 0, 7));
    assertArrayEquals(bytes, out);
  }

  @Test
  void anAlertRecordAfterTheStartIsData() throws Exception {
    InboundBuffer buffer = watching("hi\r\n".getBytes(UTF_8));
    assertEquals("hi", buffer.pollLine(10, true, UTF_8));
    buffer.append(UNEXPECTED_MESSAGE, 0, 7);
    byte[] out = new byte[7];
    assertTrue(buffer.pollFully(out, 0, 7));
    assertArrayEquals(UNEXPECTED_MESSAGE, out);
  }

  @Test
  void anAlertRecordIsDataWhenNotWatched() throws Exception {
    InboundBuffer buffer = new InboundBuffer(16);
    buffer.append(UNEXPECTED_MESSAGE, 0, 7);
    assertEquals(7, buffer.poll(new byte[10], 0, 10));
  }

  @Test
  void anAlertRecordIsDataOnceTheSessionSpeaksTls() throws Exception {
    InboundBuffer buffer = watching(UNEXPECTED_MESSAGE);
    buffer.stopExpectingPlaintext();
    assertEquals(7, buffer.poll(new byte[10], 0, 10));
  }

  @Test
  void takeAllHandsOutEverythingBufferedEvenAnAlertRecord() {
    InboundBuffer buffer = watching(UNEXPECTED_MESSAGE);
    assertArrayEquals(UNEXPECTED_MESSAGE, buffer.takeAll());
    assertEquals(0, buffer.size());
    assertArrayEquals(new byte[0], buffer.takeAll());
  }

  @Test
  void aLineReadWaitsForTheWholeRecordWhenItArrivesOneByteAtATime() throws Exception {
    InboundBuffer buffer = new InboundBuffer(16);
    buffer.expectPlaintextFrom(PEER);
    for (int i = 0; i < 6; i++) {
      buffer.append(UNEXPECTED_MESSAGE, i, 1);
      assertNull(buffer.pollLine(100, true, UTF_8), "need more");
    }
    buffer.append(UNEXPECTED_MESSAGE, 6, 1);
    assertThrows(TlsRequiredException.class, () -> buffer.pollLine(100, true, UTF_8));
  }

  /** Every split of the record into two arrivals, to each kind of poll: the alert, never data. */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 5, 6})
  void anAlertSplitInArrivalIsReportedAsOneThatCameWhole(int first) throws Exception {
    for (int kind = 0; kind < 3; kind++) {
      InboundBuffer buffer = new InboundBuffer(16);
      buffer.expectPlaintextFrom(PEER);
      buffer.append(UNEXPECTED_MESSAGE, 0, first);
      byte[] out = new byte[100];
      // Before the record is whole, nothing is handed out: "need more".
      if (kind == 0) {
        assertEquals(InboundBuffer.NO_BYTES_YET, buffer.poll(out, 0, 100));
      } else if (kind == 1) {
        assertEquals(false, buffer.pollFully(out, 0, 1));
      } else {
        assertNull(buffer.pollLine(100, true, UTF_8));
      }
      assertEquals(first, buffer.size(), "nothing taken");
      buffer.append(UNEXPECTED_MESSAGE, first, UNEXPECTED_MESSAGE.length - first);
      int k = kind;
      TlsRequiredException e = assertThrows(TlsRequiredException.class, () -> {
        if (k == 0) {
          buffer.poll(out, 0, 100);
        } else if (k == 1) {
          buffer.pollFully(out, 0, 1);
        } else {
          buffer.pollLine(100, true, UTF_8);
        }
      });
      assertEquals(EXPECTED, e.getMessage());
    }
  }

  @Test
  void aPrefixOfARecordIsHandedOutOnceAByteDecidesItIsNot() throws Exception {
    // A lone 0x15 (NAK in some binary protocols) waits for one more byte, which decides.
    InboundBuffer buffer = watching(new byte[] {0x15});
    byte[] out = new byte[10];
    assertEquals(InboundBuffer.NO_BYTES_YET, buffer.poll(out, 0, 10));
    buffer.append(new byte[] {'x'}, 0, 1);
    assertEquals(2, buffer.poll(out, 0, 10));
    assertEquals(0x15, out[0]);
    assertEquals('x', out[1]);
    buffer.append(UNEXPECTED_MESSAGE, 0, 7);
    assertEquals(7, buffer.poll(out, 0, 10), "the watch has ended: later bytes are data");
  }

  @Test
  void aPrefixOfARecordAtTheEndOfTheStreamIsData() throws Exception {
    InboundBuffer buffer = watching(new byte[] {0x15, 0x03, 0x03});
    byte[] out = new byte[10];
    assertEquals(InboundBuffer.NO_BYTES_YET, buffer.poll(out, 0, 10));
    buffer.markEof();
    assertEquals(3, buffer.poll(out, 0, 10));
    assertEquals(-1, buffer.poll(out, 0, 10));
  }

  @Test
  void nothingBufferedIsStillNeedMore() throws Exception {
    InboundBuffer buffer = watching(new byte[0]);
    assertEquals(InboundBuffer.NO_BYTES_YET, buffer.poll(new byte[1], 0, 1));
    assertNull(buffer.pollLine(10, true, UTF_8), "need more");
  }

  private static byte[] hex(String hex) {
    String[] parts = hex.split(" ");
    byte[] out = new byte[parts.length];
    for (int i = 0; i < parts.length; i++) {
      out[i] = (byte) Integer.parseInt(parts[i], 16);
    }
    return out;
  }
}
