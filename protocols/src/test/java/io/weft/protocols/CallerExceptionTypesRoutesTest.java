package io.weft.protocols;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.tools.Agent;
import io.weft.continuations.tools.Rewrite;
import io.weft.protocols.callers.SmtpGreetingTask;
import io.weft.protocols.smtp.SmtpClient;
import io.weft.testsupport.ChildJvm;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CallerExceptionTypesTest} through the two other routes than the continuation loader:
 * Weft's {@code -javaagent}, and the {@code Rewrite} tool's output. Each protocols exception type
 * reaches the caller as its own class in 500 sessions, in continuations(1) and (2), over both
 * suspending connectors. On these routes the classes are rewritten in place, defined once by the
 * application's loader, so there is no second copy by construction; what the test shows is that
 * each route runs the protocol clients rewritten (the runner refuses a task that was not: leave a
 * client's package out and its lines say "refused") and that their failures are the caller's classes.
 */
class CallerExceptionTypesRoutesTest {
  private static final int SESSIONS = 500;
  // Below JUnit's 5 min for the test (which the tool route also spends on two rewrites), so that the
  // child's own limit, which prints the child's thread dump, fires first.
  private static final Duration CHILD_LIMIT = Duration.ofSeconds(180);
  private static final List<String> TYPES = List.of("SmtpReplyException", "RedisErrorException",
      "ProtocolViolationException", "PgException");

  @TempDir
  Path temp;

  @Test
  void underTheAgentEveryProtocolsExceptionReachesTheCallerAsItsOwnClass() throws Exception {
    Path agent = ChildJvm.agentJar(Agent.class, temp);
    ChildJvm.Result child = ChildJvm.run(temp, CHILD_LIMIT,
        List.of("-javaagent:" + agent + "=" + String.join(",", CallerExceptionTypesTest.INSTRUMENTED)),
        CallerExceptionsChild.class.getName(), Integer.toString(SESSIONS));
    System.out.println(child);
    assertTrue(child.err().contains("weft agent: rewriting [io.weft.protocols.callers."), child.toString());
    assertEveryTypeIsTheCallers(child);
  }

  @Test
  void rewrittenByTheToolEveryProtocolsExceptionReachesTheCallerAsItsOwnClass() throws Exception {
    // The module's classes (the clients' packages), then its test classes (the callers' package)
    // against the rewritten clients, as a user's build rewrites a library and then the code that
    // calls it. The tool copies each directory whole; each copy goes ahead of what it copies.
    String clients = String.join(",", CallerExceptionTypesTest.INSTRUMENTED);
    Path main = rewrite(ChildJvm.codeSource(SmtpClient.class), clients, temp.resolve("classes"),
        System.getProperty("java.class.path"));
    String rewrittenFirst = main + File.pathSeparator + System.getProperty("java.class.path");
    Path tests = rewrite(ChildJvm.codeSource(SmtpGreetingTask.class), SmtpGreetingTask.class.getPackageName(),
        temp.resolve("test-classes"), rewrittenFirst);
    String classPath = tests + File.pathSeparator + rewrittenFirst;
    ChildJvm.Result child = ChildJvm.runOnClassPath(temp, CHILD_LIMIT, List.of(), classPath,
        CallerExceptionsChild.class.getName(), Integer.toString(SESSIONS));
    System.out.println(child);
    assertEveryTypeIsTheCallers(child);
  }

  private static void assertEveryTypeIsTheCallers(ChildJvm.Result child) {
    assertEquals(0, child.exit(), child.toString());
    assertTrue(child.out().contains("SmtpClient loaded by app\n"), child.toString());
    for (String transport : List.of("MINA", "Netty")) {
      for (int workers = 1; workers <= 2; workers++) {
        for (String type : TYPES) {
          String line = "CONTINUATIONS(" + workers + ")/" + transport + " " + type + ": " + SESSIONS + " of "
              + SESSIONS + " the caller's class\n";
          assertTrue(child.out().contains(line), line + " in " + child);
        }
      }
    }
  }

  /** The Rewrite tool over {@code classes}, {@code packages} rewritten, into {@code output}. */
  private static Path rewrite(Path classes, String packages, Path output, String classPath) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      code = Rewrite.run(List.of("--classes", classes.toString(), "--packages", packages, "--output",
          output.toString(), "--classpath", classPath), o, o);
    }
    assertEquals(0, code, out.toString(StandardCharsets.UTF_8));
    return output;
  }
}
