package io.weft.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.weft.continuations.Mode;
import io.weft.continuations.RunResult;
import io.weft.samples.pg.PgQuery;
import io.weft.testsupport.PostgresServerProcess;
import io.weft.testsupport.ServerBinaries;
import io.weft.testsupport.TestPki;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class PgQueryTest {
  private static final int SESSIONS = 60;

  @Test
  void queriesPostgresInEveryModeTheJdkHas() throws Exception {
    Path bin = PostgresServerProcess.findBinDirectory();
    if (bin == null) {
      String message = ServerBinaries.missingMessage(PostgresServerProcess.BINARY, PostgresServerProcess.DEBIAN_PACKAGE);
      System.err.println("WARNING: " + message);
      if (ServerBinaries.inCi()) {
        fail(message);
      }
      Assumptions.abort(message);
    }
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    List<RunResult<String>> results;
    String user = PostgresServerProcess.SCRAM_USER;
    try (PostgresServerProcess pg = PostgresServerProcess.start(bin, TestPki.create("Weft sample CA"));
         PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
      results = PgQuery.run(pg.address(), user, PostgresServerProcess.password(user), PostgresServerProcess.DATABASE,
          SESSIONS, out);
    }
    String output = printed.toString(StandardCharsets.UTF_8);
    List<Mode> expected = new ArrayList<>(List.of(Mode.SYNC, Mode.THREADS, Mode.continuations(1)));
    if (Runtime.version().feature() >= 21) {
      expected.add(Mode.VIRTUAL_THREADS);
    } else {
      assertTrue(output.contains("VIRTUAL_THREADS: skipped: VIRTUAL_THREADS mode needs JDK 21"), output);
    }
    assertEquals(expected, results.stream().map(RunResult::mode).collect(Collectors.toList()));
    for (RunResult<String> result : results) {
      assertTrue(result.allSucceeded(), result + "\n" + output);
      for (int i = 0; i < SESSIONS; i++) {
        assertEquals(Integer.toString(2 * i), result.outcome(i).value(), "session " + i + " in " + result.mode());
      }
    }
  }
}
