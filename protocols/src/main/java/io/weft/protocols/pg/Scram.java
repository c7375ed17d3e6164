package io.weft.protocols.pg;

import io.weft.transport.ProtocolViolationException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The client side of SCRAM-SHA-256 (RFC 5802, RFC 7677), with the {@code tls-server-end-point}
 * channel binding of SCRAM-SHA-256-PLUS (RFC 5929), as PostgreSQL speaks it. Pure computation:
 * the client sends what {@link #clientFirst()} and {@link #clientFinal(byte[])} return and gives
 * back what the server sent.
 *
 * <p>Lifecycle: {@link #clientFirst()}, then {@link #clientFinal(byte[])} with the server-first
 * message, then {@link #verifyServerFinal(byte[])} with the server-final message. The password is
 * used as UTF-8 without SASLprep, which is the same for ASCII passwords (what the server's own
 * SASLprep leaves unchanged).
 */
final class Scram {
  /** The mechanism without channel binding. */
  static final String SHA_256 = "SCRAM-SHA-256";
  /** The mechanism with channel binding. */
  static final String SHA_256_PLUS = "SCRAM-SHA-256-PLUS";
  /** Refused above this: each iteration is an HMAC, and a hostile server could ask for billions. */
  static final int MAX_ITERATIONS = 1 << 20;

  private static final SecureRandom RANDOM = new SecureRandom();

  private final byte[] password;
  private final String gs2Header;
  private final byte[] channelBinding;
  private final String clientNonce;
  private final String clientFirstBare;
  private byte[] expectedServerSignature;

  /**
   * @param user the user name sent in SCRAM (PostgreSQL ignores it and uses the startup's)
   * @param password the password
   * @param gs2Header {@code "n,,"} (no channel binding), {@code "y,,"} (the client could bind but
   *     the server offered no PLUS) or {@code "p=tls-server-end-point,,"}
   * @param channelBinding the binding data for {@code p=}, else empty
   * @param clientNonce the client's nonce, printable ASCII without commas
   */
  Scram(String user, String password, String gs2Header, byte[] channelBinding, String clientNonce) {
    this.password = password.getBytes(StandardCharsets.UTF_8);
    this.gs2Header = gs2Header;
    this.channelBinding = channelBinding.clone();
    this.clientNonce = clientNonce;
    this.clientFirstBare = "n=" + user.replace("=", "=3D").replace(",", "=2C") + ",r=" + clientNonce;
  }

  /** A fresh random nonce: 18 random bytes in base64. */
  static String newNonce() {
    byte[] b = new byte[18];
    RANDOM.nextBytes(b);
    return Base64.getEncoder().encodeToString(b);
  }

  /**
   * The {@code tls-server-end-point} binding data: the server certificate's hash, with the hash
   * of its signature algorithm (SHA-256 where that is MD5 or SHA-1).
   */
  static byte[] tlsServerEndPoint(X509Certificate certificate) throws ProtocolViolationException {
    String algorithm = certificate.getSigAlgName().toUpperCase(java.util.Locale.ROOT);
    int with = algorithm.indexOf("WITH");
    String hash = with > 0 ? algorithm.substring(0, with) : "";
    String digest;
    switch (hash) {
      case "SHA384":
        digest = "SHA-384";
        break;
      case "SHA512":
        digest = "SHA-512";
        break;
      case "SHA224":
        digest = "SHA-224";
        break;
      case "MD5":
      case "SHA1":
      case "SHA256":
        digest = "SHA-256";
        break;
      default:
        throw new ProtocolViolationException("cannot bind to a server certificate signed with "
            + certificate.getSigAlgName() + ": no hash to use for tls-server-end-point");
    }
    try {
      return MessageDigest.getInstance(digest).digest(certificate.getEncoded());
    } catch (GeneralSecurityException e) {
      throw new ProtocolViolationException("cannot hash the server certificate: " + e.getMessage(), e);
    }
  }

  /** The client-first message. */
  byte[] clientFirst() {
    return (gs2Header + clientFirstBare).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The client-final message for the server-first message {@code serverFirst}.
   *
   * @throws ProtocolViolationException if the server-first message is malformed, its nonce does
   *     not extend the client's, or it asks for more than {@link #MAX_ITERATIONS}
   */
  byte[] clientFinal(byte[] serverFirst) throws ProtocolViolationException {
    String message = new String(serverFirst, StandardCharsets.UTF_8);
    String nonce = null;
    String salt = null;
    String iterations = null;
    for (String part : message.split(",", -1)) {
      if (part.startsWith("r=")) {
        nonce = part.substring(2);
      } else if (part.startsWith("s=")) {
        salt = part.substring(2);
      } else if (part.startsWith("i=")) {
        iterations = part.substring(2);
      } else if (part.startsWith("m=")) {
        throw bad("an extension the client does not know", message);
      }
    }
    if (nonce == null || salt == null || iterations == null) {
      throw bad("a server-first message without r=, s= and i=", message);
    }
    if (!nonce.startsWith(clientNonce) || nonce.length() == clientNonce.length()) {
      throw bad("a server nonce that does not extend the client's", message);
    }
    int count;
    byte[] saltBytes;
    try {
      count = Integer.parseInt(iterations);
      saltBytes = Base64.getDecoder().decode(salt);
    } catch (IllegalArgumentException e) {
      throw bad("a malformed salt or iteration count", message);
    }
    if (count < 1 || count > MAX_ITERATIONS) {
      throw bad("an iteration count out of 1.." + MAX_ITERATIONS, message);
    }
    byte[] cbind = new byte[gs2Header.length() + channelBinding.length];
    byte[] header = gs2Header.getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(header, 0, cbind, 0, header.length);
    System.arraycopy(channelBinding, 0, cbind, header.length, channelBinding.length);
    String withoutProof = "c=" + Base64.getEncoder().encodeToString(cbind) + ",r=" + nonce;
    byte[] authMessage = (clientFirstBare + "," + message + "," + withoutProof).getBytes(StandardCharsets.UTF_8);
    byte[] salted = hi(password, saltBytes, count);
    byte[] clientKey = hmac(salted, "Client Key".getBytes(StandardCharsets.US_ASCII));
    byte[] storedKey = sha256(clientKey);
    byte[] clientSignature = hmac(storedKey, authMessage);
    byte[] proof = new byte[clientKey.length];
    for (int i = 0; i < proof.length; i++) {
      proof[i] = (byte) (clientKey[i] ^ clientSignature[i]);
    }
    byte[] serverKey = hmac(salted, "Server Key".getBytes(StandardCharsets.US_ASCII));
    expectedServerSignature = hmac(serverKey, authMessage);
    return (withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof)).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Checks the server-final message: the server proves it knows the password (and, with channel
   * binding, that it is the TLS endpoint the client talks to).
   *
   * @throws ProtocolViolationException if it is an error, malformed, or the signature is wrong
   * @throws IllegalStateException before {@link #clientFinal(byte[])}
   */
  void verifyServerFinal(byte[] serverFinal) throws ProtocolViolationException {
    if (expectedServerSignature == null) {
      throw new IllegalStateException("no client-final message yet");
    }
    String message = new String(serverFinal, StandardCharsets.UTF_8);
    if (message.startsWith("e=")) {
      throw bad("an error " + message.substring(2), message);
    }
    if (!message.startsWith("v=")) {
      throw bad("a server-final message without v=", message);
    }
    int end = message.indexOf(',');
    byte[] signature;
    try {
      signature = Base64.getDecoder().decode(message.substring(2, end < 0 ? message.length() : end));
    } catch (IllegalArgumentException e) {
      throw bad("a malformed server signature", message);
    }
    if (!MessageDigest.isEqual(signature, expectedServerSignature)) {
      throw new ProtocolViolationException("SCRAM: the server's signature is wrong; it does not know the"
          + " password, or something between client and server is not the server");
    }
  }

  private static ProtocolViolationException bad(String what, String message) {
    return new ProtocolViolationException("SCRAM: the server sent " + what + ": "
        + ProtocolViolationException.quote(message));
  }

  private static byte[] hi(byte[] password, byte[] salt, int iterations) {
    Mac mac = mac(password);
    mac.update(salt);
    mac.update(new byte[] {0, 0, 0, 1});
    byte[] u = mac.doFinal();
    byte[] result = u.clone();
    for (int i = 1; i < iterations; i++) {
      u = mac.doFinal(u);
      for (int j = 0; j < result.length; j++) {
        result[j] ^= u[j];
      }
    }
    return result;
  }

  private static byte[] hmac(byte[] key, byte[] data) {
    return mac(key).doFinal(data);
  }

  private static Mac mac(byte[] key) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key.length == 0 ? new byte[1] : key, "HmacSHA256"));
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is missing from this JDK", e);
    }
  }

  private static byte[] sha256(byte[] data) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(data);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }
}
