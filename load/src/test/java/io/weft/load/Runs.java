package io.weft.load;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weft.testsupport.ServerBinaries;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/** Running {@code weft-load} in process for tests: its exit code, what it printed, its JSON summary. */
final class Runs {
  final int exit;
  final String output;
  final File out;

  private Runs(int exit, String output, File out) {
    this.exit = exit;
    this.output = output;
    this.out = out;
  }

  static Runs run(File out, String... args) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream ps = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    String[] all = new String[args.length + 2];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "--out";
    all[args.length + 1] = out.getPath();
    int exit = WeftLoad.run(ps, all);
    return new Runs(exit, bytes.toString(StandardCharsets.UTF_8), out);
  }

  JsonNode summary() throws IOException {
    return new ObjectMapper().readTree(new File(out, "summary.json"));
  }

  /** A server binary, or skip (fail in CI) when it is not installed. */
  static Path binary(String name, String debianPackage) {
    Path p = ServerBinaries.find(name);
    if (p == null) {
      if (ServerBinaries.inCi()) {
        fail(ServerBinaries.missingMessage(name, debianPackage));
      }
      Assumptions.assumeTrue(false, ServerBinaries.missingMessage(name, debianPackage));
    }
    return p;
  }

  @Override
  public String toString() {
    return "exit " + exit + "\n" + output;
  }
}
