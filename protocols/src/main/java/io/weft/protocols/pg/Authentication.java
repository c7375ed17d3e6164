package io.weft.protocols.pg;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.Transport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * The authentication exchange of a PostgreSQL startup, from the StartupMessage's answer to
 * AuthenticationOk: trust, cleartext password, MD5 and SCRAM-SHA-256(-PLUS). It refuses what an
 * honest server never does: AuthenticationOk in the middle of SCRAM (before the server proved it
 * knows the password), a SCRAM step out of order, a method it does not know.
 */
final class Authentication {
  private static final int OK = 0;
  private static final int CLEARTEXT = 3;
  private static final int MD5 = 5;
  private static final int SASL = 10;
  private static final int SASL_CONTINUE = 11;
  private static final int SASL_FINAL = 12;

  private final Transport transport;
  private final Backend in;
  private final PgOptions options;
  private final NoticeSink notices;
  private Scram scram;
  /** 0: no SCRAM; 1: sent client-first; 2: sent client-final; 3: server verified. */
  private int scramStep;
  private boolean channelBound;

  /** Where notices that arrive during authentication go. */
  interface NoticeSink {
    void notice(PgNotice notice);
  }

  Authentication(Transport transport, Backend in, PgOptions options, NoticeSink notices) {
    this.transport = transport;
    this.in = in;
    this.options = options;
    this.notices = notices;
  }

  /**
   * Answers the server's requests until AuthenticationOk.
   *
   * @throws PgException if the server refuses (wrong password, no such user, pg_hba.conf)
   * @throws ProtocolViolationException if the server breaks the exchange
   * @throws IOException if the client cannot meet the request (no password, binding required)
   */
  void run() throws IOException {
    for (;;) {
      int type = in.next();
      if (type == 'E') {
        throw new PgException(in.fields());
      }
      if (type == 'N') {
        notices.notice(new PgNotice(in.fields()));
        continue;
      }
      if (type != 'R') {
        throw in.unexpected("during authentication");
      }
      int code = in.int32();
      switch (code) {
        case OK:
          in.end();
          if (scramStep != 0 && scramStep != 3) {
            throw new ProtocolViolationException("AuthenticationOk before the server finished SCRAM:"
                + " it never proved it knows the password");
          }
          if (options.channelBinding() == PgOptions.ChannelBinding.REQUIRE && !channelBound) {
            throw new IOException("channel binding is required and the server authenticated without"
                + " SCRAM-SHA-256-PLUS");
          }
          return;
        case CLEARTEXT:
          in.end();
          refuseUnbound("a cleartext password");
          Frontend.password(transport, password("a cleartext password"));
          transport.flush();
          break;
        case MD5:
          byte[] salt = new byte[4];
          for (int i = 0; i < 4; i++) {
            salt[i] = (byte) in.int8();
          }
          in.end();
          refuseUnbound("an MD5 password");
          Frontend.password(transport, md5(options.user(), password("an MD5 password"), salt));
          transport.flush();
          break;
        case SASL:
          startScram();
          break;
        case SASL_CONTINUE:
          if (scramStep != 1) {
            throw new ProtocolViolationException("SASLContinue out of order: SCRAM step " + scramStep);
          }
          Frontend.saslResponse(transport, scram.clientFinal(in.rest()));
          transport.flush();
          scramStep = 2;
          break;
        case SASL_FINAL:
          if (scramStep != 2) {
            throw new ProtocolViolationException("SASLFinal out of order: SCRAM step " + scramStep);
          }
          scram.verifyServerFinal(in.rest());
          scramStep = 3;
          break;
        default:
          throw new ProtocolViolationException("authentication method " + code
              + " is not supported (trust, cleartext, MD5 and SCRAM-SHA-256 are)");
      }
    }
  }

  private void startScram() throws IOException {
    if (scramStep != 0) {
      throw new ProtocolViolationException("a second AuthenticationSASL during SCRAM");
    }
    List<String> mechanisms = new ArrayList<>();
    for (;;) {
      String m = in.cstring();
      if (m.isEmpty()) {
        break;
      }
      mechanisms.add(m);
    }
    in.end();
    String password = password("SCRAM-SHA-256");
    Optional<SSLSession> tls = transport.tlsSession();
    boolean bind = tls.isPresent() && options.channelBinding() != PgOptions.ChannelBinding.DISABLE;
    String mechanism;
    if (bind && mechanisms.contains(Scram.SHA_256_PLUS)) {
      byte[] endPoint = Scram.tlsServerEndPoint(serverCertificate(tls.get()));
      scram = new Scram("", password, "p=tls-server-end-point,,", endPoint, Scram.newNonce());
      mechanism = Scram.SHA_256_PLUS;
      channelBound = true;
    } else if (mechanisms.contains(Scram.SHA_256)) {
      refuseUnbound("SCRAM-SHA-256 without channel binding (offered: " + mechanisms + ")");
      scram = new Scram("", password, bind ? "y,," : "n,,", new byte[0], Scram.newNonce());
      mechanism = Scram.SHA_256;
    } else {
      throw new ProtocolViolationException("no SASL mechanism in common: the server offers " + mechanisms);
    }
    Frontend.saslInitialResponse(transport, mechanism, scram.clientFirst());
    transport.flush();
    scramStep = 1;
  }

  private void refuseUnbound(String what) throws IOException {
    if (options.channelBinding() == PgOptions.ChannelBinding.REQUIRE) {
      throw new IOException("channel binding is required and the server asks for " + what);
    }
  }

  private String password(String forWhat) throws IOException {
    if (options.password() == null) {
      throw new IOException("the server asks for " + forWhat + " for user " + options.user()
          + " and no password was given");
    }
    return options.password();
  }

  private static X509Certificate serverCertificate(SSLSession session) throws ProtocolViolationException {
    try {
      Certificate[] chain = session.getPeerCertificates();
      if (chain.length > 0 && chain[0] instanceof X509Certificate) {
        return (X509Certificate) chain[0];
      }
    } catch (SSLPeerUnverifiedException e) {
      // Falls through: without the server's certificate there is nothing to bind to.
    }
    throw new ProtocolViolationException("the TLS session has no X.509 server certificate to bind SCRAM to");
  }

  /** PostgreSQL's MD5 answer: "md5" + md5hex(md5hex(password + user) + salt). */
  static String md5(String user, String password, byte[] salt) {
    try {
      MessageDigest md = MessageDigest.getInstance("MD5");
      String inner = hex(md.digest((password + user).getBytes(StandardCharsets.UTF_8)));
      md.update(inner.getBytes(StandardCharsets.US_ASCII));
      md.update(salt);
      return "md5" + hex(md.digest());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("MD5 is missing from this JDK", e);
    }
  }

  private static String hex(byte[] bytes) {
    StringBuilder s = new StringBuilder(bytes.length * 2);
    for (byte b : bytes) {
      s.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
    }
    return s.toString();
  }
}
