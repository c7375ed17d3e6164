package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.weft.testsupport.PostgresServerProcess;
import io.weft.testsupport.ServerBinaries;
import io.weft.testsupport.TestPki;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code weft-load pg} against a real PostgreSQL started once for the class. */
class PgScenarioTest {
  private static final TestPki PKI = TestPki.create("Weft load PostgreSQL test CA");
  private static PostgresServerProcess pg;

  @TempDir Path dir;

  @BeforeAll
  static void startServer() throws Exception {
    Path bin = PostgresServerProcess.findBinDirectory();
    if (bin == null) {
      String message = ServerBinaries.missingMessage(PostgresServerProcess.BINARY, PostgresServerProcess.DEBIAN_PACKAGE);
      if (ServerBinaries.inCi()) {
        fail(message);
      }
      Assumptions.abort(message);
    }
    pg = PostgresServerProcess.start(bin, PKI);
  }

  @AfterAll
  static void stopServer() {
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void eachStatementIsTimedByItsFirstWordAndRefusedOnesCountBySqlstate() throws Exception {
    Runs r = Runs.run(new File(dir.toFile(), "pg"), "pg", "-t", "127.0.0.1:" + pg.port(),
        "--mode", "continuations:1", "-u", "3", "-n", "10",
        "-U", PostgresServerProcess.SCRAM_USER, "--password", PostgresServerProcess.password(PostgresServerProcess.SCRAM_USER),
        "--database", PostgresServerProcess.DATABASE,
        "-c", "SELECT 1", "-c", "SELECT * FROM no_such_table", "-c", "VALUES (1), (2)", "-q");
    assertEquals(0, r.exit, r::toString);
    JsonNode s = r.summary();
    assertEquals(3, s.at("/operations/CONNECT/count").asLong(), r::toString);
    assertEquals(30, s.at("/operations/SELECT/count").asLong(), r::toString);
    assertEquals(30, s.at("/operations/VALUES/count").asLong(), r::toString);
    // The refused statement is an error of its operation, by SQLSTATE, and the user carries on.
    assertEquals(30, s.at("/operations/SELECT/errors/SQLSTATE_42P01").asLong(), r::toString);
  }

  @Test
  void statementsFromAFileOverTlsWithAPrivateCa() throws Exception {
    Path file = dir.resolve("queries.sql");
    Files.writeString(file, "-- two statements\nSELECT 1; SELECT 2\n\nSHOW server_version\n", StandardCharsets.UTF_8);
    Path ca = dir.resolve("ca.pem");
    Files.writeString(ca, PKI.caPem(), StandardCharsets.US_ASCII);
    Runs r = Runs.run(new File(dir.toFile(), "pg-tls"), "pg", "-t", "127.0.0.1:" + pg.port(),
        "--mode", "threads", "-u", "2", "-n", "5",
        "-U", PostgresServerProcess.TLS_USER, "--password", PostgresServerProcess.password(PostgresServerProcess.TLS_USER),
        "--database", PostgresServerProcess.DATABASE, "--tls", "require", "--ca-file", ca.toString(),
        "-f", file.toString(), "--simple", "-q");
    assertEquals(0, r.exit, r::toString);
    JsonNode s = r.summary();
    assertEquals(10, s.at("/operations/SELECT/count").asLong(), r::toString);
    assertEquals(10, s.at("/operations/SHOW/count").asLong(), r::toString);
    assertTrue(s.at("/operations/SELECT/errors").isMissingNode() || s.at("/operations/SELECT/errors").isEmpty(),
        r::toString);
  }
}
