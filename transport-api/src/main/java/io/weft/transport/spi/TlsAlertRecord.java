package io.weft.transport.spi;

import io.weft.transport.TlsRequiredException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Recognises a TLS alert record at the start of a plaintext stream: what a TLS server sends back
 * to a client that spoke plaintext to it. The shape is exact (RFC 8446 section 5.1, RFC 5246
 * section 6.2.1): content type 21, version 3.0 to 3.4, length 2, level 1 (warning) or 2 (fatal),
 * then the description. Not API.
 */
final class TlsAlertRecord {
  /** The bytes of an alert record: a 5-byte header and a 2-byte alert. */
  static final int LENGTH = 7;
  /** {@link #match}: the bytes are not the start of an alert record. */
  static final int NOT_ONE = -1;
  /** {@link #match}: the bytes are the start of one so far (or there are none); more will tell. */
  static final int UNDECIDED = -2;

  private static final int CONTENT_TYPE_ALERT = 21;
  private static final int LEVEL_WARNING = 1;
  private static final int LEVEL_FATAL = 2;

  private TlsAlertRecord() {}

  /**
   * Whether {@code data[off..off+len)} begins with an alert record.
   *
   * @return the alert's description (0 to 255) when the first {@value #LENGTH} bytes are one;
   *     {@link #NOT_ONE} when a byte already differs; {@link #UNDECIDED} when fewer than
   *     {@value #LENGTH} bytes are there and all of them fit
   */
  static int match(byte[] data, int off, int len) {
    int n = Math.min(len, LENGTH - 1);
    for (int i = 0; i < n; i++) {
      if (!fits(i, data[off + i] & 0xff)) {
        return NOT_ONE;
      }
    }
    return len >= LENGTH ? data[off + LENGTH - 1] & 0xff : UNDECIDED;
  }

  private static boolean fits(int index, int b) {
    switch (index) {
      case 0:
        return b == CONTENT_TYPE_ALERT;
      case 1:
        return b == 3;
      case 2:
        return b <= 4;
      case 3:
        return b == 0;
      case 4:
        return b == 2;
      case 5:
        return b == LEVEL_WARNING || b == LEVEL_FATAL;
      default:
        return true;
    }
  }

  /** The exception for an alert record of {@code level} and {@code description} from {@code peer}. */
  static TlsRequiredException required(String peer, int level, int description) {
    return new TlsRequiredException("the peer at " + peer + " answered with a "
        + (level == LEVEL_FATAL ? "fatal" : "warning") + " TLS alert (" + name(description)
        + "): it expects TLS; connect with TlsSettings or call startTls", description);
  }

  /** How a peer is named in the message: {@code host:port}, {@code [v6]:port}, else as it prints. */
  static String peerName(SocketAddress remote) {
    if (remote instanceof InetSocketAddress) {
      InetSocketAddress inet = (InetSocketAddress) remote;
      String host = inet.getHostString();
      return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + inet.getPort();
    }
    return String.valueOf(remote);
  }

  /** The alert's name as the RFCs spell it (RFC 8446 section 6, RFC 5246 section 7.2). */
  static String name(int description) {
    switch (description) {
      case 0: return "close_notify";
      case 10: return "unexpected_message";
      case 20: return "bad_record_mac";
      case 21: return "decryption_failed";
      case 22: return "record_overflow";
      case 30: return "decompression_failure";
      case 40: return "handshake_failure";
      case 41: return "no_certificate";
      case 42: return "bad_certificate";
      case 43: return "unsupported_certificate";
      case 44: return "certificate_revoked";
      case 45: return "certificate_expired";
      case 46: return "certificate_unknown";
      case 47: return "illegal_parameter";
      case 48: return "unknown_ca";
      case 49: return "access_denied";
      case 50: return "decode_error";
      case 51: return "decrypt_error";
      case 60: return "export_restriction";
      case 70: return "protocol_version";
      case 71: return "insufficient_security";
      case 80: return "internal_error";
      case 86: return "inappropriate_fallback";
      case 90: return "user_canceled";
      case 100: return "no_renegotiation";
      case 109: return "missing_extension";
      case 110: return "unsupported_extension";
      case 112: return "unrecognized_name";
      case 113: return "bad_certificate_status_response";
      case 115: return "unknown_psk_identity";
      case 116: return "certificate_required";
      case 120: return "no_application_protocol";
      default: return "alert " + description;
    }
  }
}
