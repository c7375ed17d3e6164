package io.weft.protocols.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.weft.protocols.PerModeTest;
import io.weft.protocols.ModeCase;
import io.weft.protocols.SessionMode;
import io.weft.testsupport.PostgresServerProcess;
import io.weft.testsupport.ServerBinaries;
import io.weft.testsupport.TestPki;
import io.weft.transport.SessionTask;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.Timeout;
import io.weft.transport.TlsHandshakeException;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link PgClient} against a real PostgreSQL that this class starts once (initdb in a temporary
 * directory, TLS from a test CA, a user per authentication method), in every mode: SYNC, THREADS,
 * VIRTUAL_THREADS (JDK 21+), and continuations over MINA and over Netty. Every client conversation
 * is a {@link SessionTask} run through the mode's runner.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("modes")
class PgClientTest extends PerModeTest {
  static Stream<ModeCase> modes() {
    return Stream.concat(ModeCase.all(20, 50, 100, 100),
        Stream.of(new ModeCase("CONTINUATIONS(1)/Netty", () -> SessionMode.continuationsOverNetty(1), 100)));
  }

  static final Timeout TEN_SECONDS = Timeout.of(10, TimeUnit.SECONDS);
  private static final TestPki PKI = TestPki.create("Weft PostgreSQL test CA");
  private static final TestPki OTHER_PKI = TestPki.create("Some other CA");

  private PostgresServerProcess pg;

  @AfterAll
  void closeServer() {
    if (pg != null) {
      pg.close();
    }
  }

  /** The server, started on first use; skips (a developer's machine) or fails (CI) without PostgreSQL. */
  private PostgresServerProcess pg() throws Exception {
    if (pg == null) {
      Path bin = PostgresServerProcess.findBinDirectory();
      if (bin == null) {
        String message = ServerBinaries.missingMessage(PostgresServerProcess.BINARY, PostgresServerProcess.DEBIAN_PACKAGE);
        System.err.println("WARNING: " + message);
        if (ServerBinaries.inCi()) {
          fail(message);
        }
        Assumptions.abort(message);
      }
      pg = PostgresServerProcess.start(bin, PKI);
    }
    return pg;
  }

  private <T> T run(Class<? extends SessionTask<T>> task, Object... args) throws Exception {
    return mode.run(task, pg().address(), TEN_SECONDS, args);
  }

  static PgOptions.Builder options(String user) {
    return PgOptions.builder(user).password(PostgresServerProcess.password(user))
        .database(PostgresServerProcess.DATABASE);
  }

  /** Settings that trust this class's test CA; given to the tasks, which must not make their own CA. */
  private static TlsSettings trusting() {
    return TlsSettings.builder().trustCertificates(PKI.caCertificate()).build();
  }

  // ---- queries ----

  @Test
  void simpleAndExtendedQueriesReturnTextRowsAndNulls() throws Exception {
    run(Queries.class);
  }

  public static final class Queries implements SessionTask<Boolean> {
    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      PgClient pg = PgClient.connect(transport, options(PostgresServerProcess.TRUST_USER).build());
      assertNotEquals(0, pg.processId());
      assertTrue(pg.parameters().get("server_version").matches("\\d+.*"), pg.parameters().toString());
      assertEquals("UTF8", pg.parameters().get("client_encoding"));
      List<PgResult> results = pg.simpleQuery("SELECT 1 AS one, NULL AS nothing, 'héllo' AS s; SELECT 2");
      assertEquals(2, results.size());
      assertEquals(List.of("one", "nothing", "s"), results.get(0).columns());
      assertEquals("1", results.get(0).value(0, 0));
      assertNull(results.get(0).value(0, 1));
      assertEquals("héllo", results.get(0).value(0, 2));
      assertEquals("SELECT 1", results.get(0).commandTag());
      assertEquals("2", results.get(1).value(0, 0));

      PgResult sum = pg.query("SELECT $1::int + 1 AS n, $2::text AS t, $3::text AS u", "41", null, "wörld");
      assertEquals(List.of("n", "t", "u"), sum.columns());
      assertEquals(List.of("42"), sum.rows().get(0).subList(0, 1));
      assertNull(sum.value(0, 1));
      assertEquals("wörld", sum.value(0, 2));

      pg.simpleQuery("CREATE TEMP TABLE t (id int, v text)");
      PgResult insert = pg.query("INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, $1::int) g", "500");
      assertEquals(500, insert.affectedRows());
      assertTrue(insert.columns().isEmpty());
      PgResult all = pg.query("SELECT v FROM t ORDER BY id");
      assertEquals(500, all.rows().size());
      assertEquals("v500", all.value(499, 0));
      assertEquals("", pg.simpleQuery("").get(0).commandTag());
      pg.close();
      assertFalse(transport.isOpen());
      return true;
    }
  }

  // ---- authentication ----

  @Test
  void everyPasswordMethodAuthenticatesAndAWrongPasswordIsTyped() throws Exception {
    for (String user : List.of(PostgresServerProcess.TRUST_USER, PostgresServerProcess.CLEARTEXT_USER,
        PostgresServerProcess.MD5_USER, PostgresServerProcess.SCRAM_USER)) {
      assertEquals(user, run(WhoAmI.class, user, PostgresServerProcess.password(user)));
    }
    for (String user : List.of(PostgresServerProcess.CLEARTEXT_USER, PostgresServerProcess.MD5_USER,
        PostgresServerProcess.SCRAM_USER)) {
      assertEquals("28P01 FATAL", run(WhoAmI.class, user, "wrong"), user);
    }
  }

  /** Connects as the user with the password; returns current_user, or the error's SQLSTATE and severity. */
  public static final class WhoAmI implements SessionTask<String> {
    private final String user;
    private final String password;

    public WhoAmI(String user, String password) {
      this.user = user;
      this.password = password;
    }

    @Override
    public String run(Transport transport, int index) throws Exception {
      PgClient pg;
      try {
        pg = PgClient.connect(transport, PgOptions.builder(user).password(password)
            .database(PostgresServerProcess.DATABASE).build());
      } catch (PgException e) {
        assertFalse(transport.isOpen());
        return e.sqlState() + " " + e.severity();
      }
      String me = pg.simpleQuery("SELECT current_user").get(0).value(0, 0);
      pg.close();
      return me;
    }
  }

  // ---- errors ----

  @Test
  void errorResponsesAreTypedAndTheConnectionStaysUsable() throws Exception {
    run(Errors.class);
  }

  public static final class Errors implements SessionTask<Boolean> {
    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      PgClient pg = PgClient.connect(transport, options(PostgresServerProcess.SCRAM_USER).build());
      try {
        pg.simpleQuery("SELECT * FROM no_such_table");
        fail("an undefined table was accepted");
      } catch (PgException e) {
        assertEquals("42P01", e.sqlState());
        assertEquals("ERROR", e.severity());
        assertTrue(e.serverMessage().contains("no_such_table"), e.serverMessage());
        assertTrue(e.getMessage().startsWith("ERROR 42P01: "), e.getMessage());
      }
      assertEquals("1", pg.simpleQuery("SELECT 1").get(0).value(0, 0));
      try {
        pg.query("SELEC 1");
        fail("a syntax error was accepted");
      } catch (PgException e) {
        assertEquals("42601", e.sqlState());
      }
      try {
        pg.query("SELECT 1 / $1::int", "0");
        fail("a division by zero was accepted");
      } catch (PgException e) {
        assertEquals("22012", e.sqlState());
      }
      pg.simpleQuery("BEGIN");
      assertEquals('T', pg.transactionStatus());
      try {
        pg.simpleQuery("SELECT 1/0");
        fail("a division by zero was accepted");
      } catch (PgException expected) {
        assertEquals('E', pg.transactionStatus());
      }
      try {
        pg.query("SELECT 1");
        fail("a statement in a failed transaction was accepted");
      } catch (PgException e) {
        assertEquals("25P02", e.sqlState());
      }
      pg.simpleQuery("ROLLBACK");
      assertEquals('I', pg.transactionStatus());
      assertEquals("7", pg.query("SELECT $1::int", "7").value(0, 0));

      pg.simpleQuery("DO $$ BEGIN RAISE NOTICE 'hello %', 42; RAISE WARNING 'careful'; END $$");
      List<PgNotice> notices = pg.takeNotices();
      assertEquals(2, notices.size(), notices.toString());
      assertEquals("hello 42", notices.get(0).message());
      assertEquals("NOTICE", notices.get(0).severity());
      assertEquals("WARNING", notices.get(1).severity());
      assertTrue(pg.takeNotices().isEmpty());
      pg.close();
      return true;
    }
  }

  @Test
  void aResultOverTheRowLimitIsReadToItsEndAndTheConnectionStaysUsable() throws Exception {
    run(RowLimit.class);
  }

  public static final class RowLimit implements SessionTask<Boolean> {
    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      PgClient pg = PgClient.connect(transport, options(PostgresServerProcess.TRUST_USER).rowLimit(10).build());
      // A lambda (assertThrows) cannot suspend in continuation mode: plain try/catch.
      try {
        pg.query("SELECT generate_series(1, 1000)");
        fail("1000 rows passed a limit of 10");
      } catch (java.io.IOException e) {
        assertEquals("a result of more than 10 rows (the row limit)", e.getMessage());
      }
      assertEquals(10, pg.query("SELECT generate_series(1, 10)").rows().size());
      pg.close();
      return true;
    }
  }

  // ---- TLS ----

  @Test
  void tlsRequiredUpgradesThroughSslRequestAndBindsScramToTheChannel() throws Exception {
    assertEquals("TLS " + PostgresServerProcess.TLS_USER, run(OverTls.class, "REQUIRE", "REQUIRE", trusting()));
    assertEquals("TLS " + PostgresServerProcess.TLS_USER, run(OverTls.class, "PREFER", "PREFER", trusting()));
    // Without TLS, pg_hba.conf rejects this user: a FATAL 28000.
    assertEquals("28000 FATAL", run(OverTls.class, "DISABLE", "PREFER", trusting()));
    // Channel binding required and no TLS: refused by the client before any password goes out.
    assertEquals("IOException: channel binding is required and the server asks for SCRAM-SHA-256 without"
        + " channel binding (offered: [SCRAM-SHA-256])", run(Plain.class, "REQUIRE"));
  }

  /** Connects as the TLS-only user with the TLS and channel binding modes; says how it went. */
  public static final class OverTls implements SessionTask<String> {
    private final String tlsMode;
    private final String binding;
    private final TlsSettings tls;

    public OverTls(String tlsMode, String binding, TlsSettings tls) {
      this.tlsMode = tlsMode;
      this.binding = binding;
      this.tls = tls;
    }

    @Override
    public String run(Transport transport, int index) throws Exception {
      PgClient pg;
      try {
        pg = PgClient.connect(transport, options(PostgresServerProcess.TLS_USER)
            .tls(PgOptions.TlsMode.valueOf(tlsMode), tls)
            .channelBinding(PgOptions.ChannelBinding.valueOf(binding)).build());
      } catch (PgException e) {
        return e.sqlState() + " " + e.severity();
      }
      assertTrue(pg.tls());
      String ssl = pg.simpleQuery("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").get(0).value(0, 0);
      assertEquals("t", ssl);
      String me = pg.query("SELECT current_user").value(0, 0);
      pg.close();
      return "TLS " + me;
    }
  }

  /** Connects as the SCRAM user without TLS and with the channel binding mode; says how it went. */
  public static final class Plain implements SessionTask<String> {
    private final String binding;

    public Plain(String binding) {
      this.binding = binding;
    }

    @Override
    public String run(Transport transport, int index) throws Exception {
      try {
        PgClient pg = PgClient.connect(transport, options(PostgresServerProcess.SCRAM_USER)
            .channelBinding(PgOptions.ChannelBinding.valueOf(binding)).build());
        pg.close();
        return "connected";
      } catch (java.io.IOException e) {
        assertFalse(transport.isOpen());
        return e.getClass().getSimpleName() + ": " + e.getMessage();
      }
    }
  }

  @Test
  void aServerCertificateFromAnotherCaFailsTheUpgrade() throws Exception {
    TlsSettings other = TlsSettings.builder().trustCertificates(OTHER_PKI.caCertificate()).build();
    assertEquals("TlsHandshakeException", run(UntrustedTls.class, other));
  }

  public static final class UntrustedTls implements SessionTask<String> {
    private final TlsSettings other;

    public UntrustedTls(TlsSettings other) {
      this.other = other;
    }

    @Override
    public String run(Transport transport, int index) throws Exception {
      try {
        PgClient.connect(transport, options(PostgresServerProcess.TLS_USER)
            .tls(PgOptions.TlsMode.REQUIRE, other).build());
        return "connected";
      } catch (TlsHandshakeException e) {
        assertFalse(transport.isOpen());
        return e.getClass().getSimpleName();
      }
    }
  }

  /**
   * A private CA from a PEM file and a client certificate from PEM files, in one line each, to
   * an IP literal: the server's certificate is checked against its IP-address name, and the
   * server takes the user from the client certificate (PostgreSQL's {@code cert} method).
   */
  @Test
  void mutualTlsFromPemFilesToAnIpLiteral() throws Exception {
    Path dir = java.nio.file.Files.createTempDirectory("weft-pg-client-");
    try {
      Path ca = dir.resolve("ca.pem");
      java.nio.file.Files.writeString(ca, PKI.caPem());
      TestPki.PemFiles client = PKI.issueClient(TestPki.request(PostgresServerProcess.CERT_USER))
          .writePem(dir, "client");
      TlsSettings tls = TlsSettings.builder().trustPem(ca).clientCertificatePem(client.certificate, client.key).build();
      java.net.InetSocketAddress ipLiteral = new java.net.InetSocketAddress("127.0.0.1", pg().port());
      assertEquals("127.0.0.1", ipLiteral.getHostString());
      assertEquals(PostgresServerProcess.CERT_USER, mode.run(ClientCertificate.class, ipLiteral, TEN_SECONDS, tls));
    } finally {
      try (Stream<Path> files = java.nio.file.Files.list(dir)) {
        for (Path f : (Iterable<Path>) files::iterator) {
          java.nio.file.Files.delete(f);
        }
      }
      java.nio.file.Files.delete(dir);
    }
  }

  public static final class ClientCertificate implements SessionTask<String> {
    private final TlsSettings tls;

    public ClientCertificate(TlsSettings tls) {
      this.tls = tls;
    }

    @Override
    public String run(Transport transport, int index) throws Exception {
      PgClient pg = PgClient.connect(transport, PgOptions.builder(PostgresServerProcess.CERT_USER)
          .database(PostgresServerProcess.DATABASE).tls(PgOptions.TlsMode.REQUIRE, tls).build());
      String me = pg.simpleQuery("SELECT current_user").get(0).value(0, 0);
      pg.close();
      return me;
    }
  }

  // ---- cancel ----

  @Test
  void aCancelRequestOnASecondConnectionCancelsTheRunningStatement() throws Exception {
    LinkedBlockingQueue<int[]> keys = new LinkedBlockingQueue<>();
    PostgresServerProcess server = pg();
    CompletableFuture<String> sleeper = CompletableFuture.supplyAsync(() -> {
      try {
        return mode.run(Sleeper.class, server.address(), Timeout.of(60, TimeUnit.SECONDS), keys);
      } catch (Exception e) {
        throw new java.util.concurrent.CompletionException(e);
      }
    });
    int[] key = keys.poll(30, TimeUnit.SECONDS);
    assertTrue(key != null, "the sleeping session never connected");
    PgOptions admin = options(PostgresServerProcess.TRUST_USER).build();
    try (SocketConnector connector = new SocketConnector()) {
      // Polls the server until the statement runs: a cancel that came before it would be lost.
      PgClient watcher = PgClient.connect(connector.connect(server.address(), TEN_SECONDS), admin);
      for (int i = 0; i < 3000; i++) {
        String state = watcher.query("SELECT count(*) FROM pg_stat_activity WHERE pid = $1::int"
            + " AND state = 'active' AND query LIKE '%pg_sleep%'", Integer.toString(key[0])).value(0, 0);
        if (state.equals("1")) {
          break;
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      }
      watcher.close();
      PgClient.cancel(connector.connect(server.address(), TEN_SECONDS), admin, key[0], key[1]);
    }
    assertEquals(PgException.QUERY_CANCELED + " then 1", sleeper.get(60, TimeUnit.SECONDS));
  }

  /** Publishes its process id and key, sleeps in a statement until cancelled, then queries again. */
  public static final class Sleeper implements SessionTask<String> {
    private final LinkedBlockingQueue<int[]> keys;

    public Sleeper(LinkedBlockingQueue<int[]> keys) {
      this.keys = keys;
    }

    @Override
    public String run(Transport transport, int index) throws Exception {
      PgClient pg = PgClient.connect(transport, options(PostgresServerProcess.TRUST_USER).build());
      keys.add(new int[] {pg.processId(), pg.secretKey()});
      String state;
      try {
        pg.simpleQuery("SELECT pg_sleep(50)");
        state = "not cancelled";
      } catch (PgException e) {
        state = e.sqlState();
      }
      String after = pg.simpleQuery("SELECT 1").get(0).value(0, 0);
      pg.close();
      return state + " then " + after;
    }
  }

  // ---- at scale ----

  @Test
  void concurrentSessionsEachRunTenQueries() throws Exception {
    SessionMode.requireFileDescriptors(modeCase.sessionsAtScale());
    List<String> sums = mode.runSessions(TenQueries.class, pg().address(), modeCase.sessionsAtScale(), TEN_SECONDS);
    for (int i = 0; i < sums.size(); i++) {
      assertEquals(TenQueries.expected(i), sums.get(i), "session " + i);
    }
  }

  /** Ten extended queries over SCRAM, each adding the session's index; returns the sum. */
  public static final class TenQueries implements SessionTask<String> {
    static String expected(int index) {
      return Long.toString(10L * index + 45);
    }

    @Override
    public String run(Transport transport, int index) throws Exception {
      PgClient pg = PgClient.connect(transport, options(PostgresServerProcess.SCRAM_USER).build());
      long sum = 0;
      for (int i = 0; i < 10; i++) {
        sum += Long.parseLong(pg.query("SELECT $1::int + $2::int", Integer.toString(index), Integer.toString(i))
            .value(0, 0));
      }
      pg.close();
      return Long.toString(sum);
    }
  }
}
