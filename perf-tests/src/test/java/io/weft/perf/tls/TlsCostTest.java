package io.weft.perf.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.testsupport.NginxProcess;
import io.weft.testsupport.ServerBinaries;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The TLS cost benchmark end to end at a tiny size against real nginx servers. */
class TlsCostTest {

  @Test
  void aTinyRunPrintsBothFiguresForEachMode() {
    if (ServerBinaries.find(NginxProcess.BINARY) == null) {
      String message = ServerBinaries.missingMessage(NginxProcess.BINARY, NginxProcess.DEBIAN_PACKAGE);
      if (ServerBinaries.inCi()) {
        throw new AssertionError(message);
      }
      Assumptions.abort(message);
    }
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream original = System.out;
    int exit;
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      exit = new CommandLine(new TlsCost()).execute("--sessions", "4", "--requests", "3", "--rounds", "1",
          "--modes", "cont1,threads");
    } finally {
      System.setOut(original);
    }
    String out = captured.toString(StandardCharsets.UTF_8);
    original.print(out);
    assertEquals(0, exit, out);
    assertTrue(out.contains("cont1 TLS"), out);
    assertTrue(out.contains("threads plaintext"), out);
    assertTrue(out.matches("(?s).*\\| cont1 \\| \\d+ \\| \\d+ \\| [0-9.]+ \\| \\d+ \\| \\d+ \\| [0-9.]+ \\|.*"), out);
    assertTrue(out.matches("(?s).*\\| threads \\| \\d+ \\| \\d+ \\| [0-9.]+ \\| \\d+ \\| \\d+ \\| [0-9.]+ \\|.*"), out);
  }

  @Test
  void anUnknownModeIsRefused() {
    assertEquals(2, new CommandLine(new TlsCost()).execute("--modes", "cont1,nope"));
  }

  @Test
  void medianTakesTheMiddleAndTheTableNamesAnUnavailableMode() {
    assertEquals(2.5, TlsCost.median(new double[] {4, 1, 3, 2}));
    assertEquals(3.0, TlsCost.median(new double[] {5, 3, 1}));
    assertTrue(TlsCost.table(List.of(new TlsCost.Row("vt", 0, 0, 0, 0, "needs JDK 21"))).contains("| vt | needs JDK 21"));
  }
}
