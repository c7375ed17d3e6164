package io.weft.continuations;

import io.weft.continuations.tools.Rewrite;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One run of the build-time {@link Rewrite} tool in this JVM, as the rewrite tests drive it: its
 * exit code and what it printed to stdout and stderr.
 */
record RewriteRun(int code, String out, String err) {

  /** Runs the tool with {@code args} as its command line. */
  static RewriteRun of(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
         PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      code = Rewrite.run(new ArrayList<>(List.of(args)), o, e);
    }
    return new RewriteRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
