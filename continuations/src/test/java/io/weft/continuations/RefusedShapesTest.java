package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.internal.rewrite.ClassRewriter;
import io.weft.continuations.testing.LibraryContext;
import io.weft.continuations.testing.PipeConnector;
import io.weft.continuations.testing.PipeEchoServer;
import io.weft.testsupport.ChildJvm;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Every client shape that would suspend through a frame that cannot be rewritten is refused
 * before any session starts, with the chain from the task's run to the wait, the same way by the
 * loader, by the Rewrite tool, and (rewritten with --allow-problems) by the runner with
 * alreadyRewritten(). The agent's side is in AgentTest.
 */
class RefusedShapesTest {
  static final String CLIENT = SessionRunnerTest.CLIENT;
  static final String OUTSIDE_TWO_DEEP = "OutsideHelperTask.run (line 20) → Helper.exchangeLines (line 11)"
      + " → Helper.exchangeLoop (line 18) → Transport.writeLine";

  private static final String P = CLIENT + ".";
  private static final String RUN = ".run(Lio/weft/transport/Transport;I)Ljava/lang/String;";
  private static final String LIBRARY_SHAPE = "shapes.LibraryContextShape";

  /** Task (simple name) → the refused method, with its descriptor, and the chain its refusal prints. */
  static final Map<String, String[]> SHAPES = new LinkedHashMap<>();

  static {
    SHAPES.put("ReflectionTask", new String[] {
        P + "ReflectionTask" + RUN,
        "ReflectionTask.run (line 16) → java.lang.reflect.Method.invoke"
        + " → ReflectionTask.exchange (line 23) → Transport.writeLine"});
    SHAPES.put("HandleTask", new String[] {
        P + "HandleTask" + RUN,
        "HandleTask.run (line 28) → java.lang.invoke.MethodHandle.invokeExact"
        + " → HandleTask.exchange (line 37) → Transport.writeLine"});
    SHAPES.put("OutsideReadFirstTask", new String[] {
        P + "OutsideReadFirstTask" + RUN,
        "OutsideReadFirstTask.run (line 16)"
        + " → Reads.readFirst (line 11) → Transport.readLine"});
    SHAPES.put("OutsideHelperTask", new String[] {
        P + "OutsideHelperTask" + RUN,
        OUTSIDE_TWO_DEEP});
    SHAPES.put("OutsideTypeTask", new String[] {
        P + "OutsideTypeTask" + RUN,
        "OutsideTypeTask.run (line 15) → LocalExchanger.exchange (line 13) → Transport.writeLine"});
    SHAPES.put("SyncBlockTask", new String[] {
        P + "SyncBlockTask" + RUN,
        "SyncBlockTask.run (line 22) → Object.notifyAll"});
    SHAPES.put("SyncMethodTask", new String[] {
        P + "SyncMethodTask.exchange(Lio/weft/transport/Transport;I)Ljava/lang/String;",
        "SyncMethodTask.run (line 16)"
        + " → SyncMethodTask.exchange (line 23) → Object.wait"});
    SHAPES.put("LambdaTask", new String[] {
        P + "LambdaTask" + RUN,
        "LambdaTask.run (line 17)"
        + " → LambdaTask.lambda$run$0 (line 19) → Transport.writeLine"});
    SHAPES.put("EscapingLambdaTask", new String[] {
        P + "EscapingLambdaTask" + RUN,
        "EscapingLambdaTask.run (line 19)"
        + " → EscapingLambdaTask.lambda$run$0 (line 21) → Transport.writeLine"});
    SHAPES.put("StreamLambdaTask", new String[] {
        P + "StreamLambdaTask" + RUN,
        "StreamLambdaTask.run (line 16) → StreamLambdaTask.lambda$run$0 (line 16)"
        + " → StreamLambdaTask.exchange (line 21) → Transport.writeLine"});
    SHAPES.put("ComposedFunctionTask", new String[] {
        P + "ComposedFunctionTask" + RUN,
        "ComposedFunctionTask.run (line 15)"
        + " → ComposedFunctionTask.lambda$run$0 (line 17) → Transport.writeLine"});
    SHAPES.put("JdkInterfaceTask", new String[] {
        P + "JdkInterfaceTask" + RUN,
        "JdkInterfaceTask.run (line 16) → java.util.concurrent.Callable.call"
        + " → ReadingCall.call (line 16) → Transport.writeLine"});
    SHAPES.put("AutoCloseableTask", new String[] {
        P + "AutoCloseableTask" + RUN,
        "AutoCloseableTask.run (line 15) → java.lang.AutoCloseable.close"
        + " → QuitClient.close (line 22) → Transport.writeLine"});
    SHAPES.put(LIBRARY_SHAPE, new String[] {
        "io.weft.continuations.testoutside.Library.begin(Ljava/lang/String;)V",
        "Shape.run (line 23) → LibraryContextShape.body (line 19) → Library.begin (line 13) → ThreadLocal.set"});
    SHAPES.put("ReaderTask", new String[] {
        P + "TransportInputStream.read([BII)I",
        "ReaderTask.run (line 18) → java.io.InputStream.read (called by JDK code)"
        + " → TransportInputStream.read (line 23) → Transport.read"});
  }

  /** Task (simple name) → why the JDK's class for its lambda cannot pass a suspend through, as the refusal says. */
  static final Map<String, String> LAMBDA_REASONS = Map.of(
      "LambdaTask", "it is handed to java.util.List.sort (line 17 of LambdaTask.run), which is not rewritten",
      "EscapingLambdaTask", "it is handed to java.util.Optional.map (line 29 of EscapingLambdaTask.run)",
      "StreamLambdaTask", "it is handed to java.util.stream.Stream.map (line 16 of StreamLambdaTask.run)",
      "ComposedFunctionTask",
      "it is handed to java.util.function.Function.andThen (line 24 of ComposedFunctionTask.run), which is not rewritten");

  private static final Path TEST_CLASSES = ChildJvm.codeSource(RefusedShapesTest.class);

  @TempDir
  Path temp;

  private final PipeEchoServer server = new PipeEchoServer(1, TimeUnit.MILLISECONDS);
  private final PipeConnector pipes = new PipeConnector();

  @AfterEach
  void stop() {
    pipes.close();
    server.close();
  }

  @Test
  void theLoaderRefusesEachShapeBeforeAnySessionNamingItsChain() throws Exception {
    for (Map.Entry<String, String[]> shape : SHAPES.entrySet()) {
      for (Mode mode : List.of(Mode.continuations(1), Mode.continuations(2))) {
        try (SessionRunner runner = SessionRunner.builder().mode(mode).connector(pipes).address(server.address())
            .timeout(Timeout.of(10, TimeUnit.SECONDS)).instrument(CLIENT).build()) {
          NotInstrumentableException e = assertThrows(NotInstrumentableException.class,
              () -> runner.run(task(RefusedShapesTest.class.getClassLoader(), shape.getKey()), 500));
          assertRefusal(shape, e);
          String reason = LAMBDA_REASONS.get(shape.getKey());
          assertTrue(reason == null || e.getMessage().contains(reason), e.getMessage());
        }
      }
    }
    assertEquals(0, pipes.peakOpenTransports(), "no session may start");
  }

  @Test
  void theRewriteToolRefusesEveryShapeOnceNamingItsChainAndWritesNothing() {
    Path out = temp.resolve("refused");
    RewriteRun tool = RewriteRun.of("--classes", TEST_CLASSES.toString(), "--packages", CLIENT, "--output", out.toString());
    assertEquals(1, tool.code(), tool.out() + tool.err());
    for (Map.Entry<String, String[]> shape : SHAPES.entrySet()) {
      String line = "weft rewrite: cannot run as a continuation: " + shape.getValue()[0] + ": ";
      int at = tool.err().indexOf(line);
      assertTrue(at >= 0, shape.getKey() + ": " + tool.err());
      assertEquals(-1, tool.err().indexOf(line, at + 1), "one line per method: " + tool.err());
      int end = tool.err().indexOf('\n', at);
      assertTrue(tool.err().substring(at, end).contains(": " + shape.getValue()[1] + ". "), tool.err());
    }
    assertFalse(Files.exists(out), "nothing may be written");
  }

  @Test
  void classesRewrittenWithProblemsAllowedAreRefusedByTheRunnerNamingTheSameChain() throws Exception {
    Path out = temp.resolve("allowed");
    RewriteRun tool = RewriteRun.of("--classes", TEST_CLASSES.toString(), "--packages", CLIENT, "--output", out.toString(),
        "--allow-problems");
    assertEquals(0, tool.code(), tool.err());
    try (URLClassLoader loader = BuildTimeRewriteTest.rewrittenClients(out);
         SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(2)).connector(pipes)
             .address(server.address()).timeout(Timeout.of(10, TimeUnit.SECONDS)).alreadyRewritten().build()) {
      for (Map.Entry<String, String[]> shape : SHAPES.entrySet()) {
        NotInstrumentableException e = assertThrows(NotInstrumentableException.class,
            () -> runner.run(task(loader, shape.getKey()), 500));
        assertRefusal(shape, e);
      }
    }
    assertEquals(0, pipes.peakOpenTransports(), "no session may start");
  }

  @Test
  void aThreadLocalOnASuspendPathIsNeitherWarnedNorRefusedAndKeepsItsSessionsValue() throws Exception {
    for (Mode mode : List.of(Mode.continuations(1), Mode.continuations(2))) {
      try (SessionRunner runner = SessionRunner.builder().mode(mode).connector(pipes)
          .address(server.address()).timeout(Timeout.of(10, TimeUnit.SECONDS)).instrument(CLIENT).build()) {
        for (String warning : runner.classLoader().report().warnings()) {
          assertFalse(warning.contains("ThreadLocal"), warning);
        }
        Class<? extends SessionTask<String>> type = task(RefusedShapesTest.class.getClassLoader(), "ThreadLocalTask");
        RunResult<String> result = runner.run(type, 500);
        assertTrue(result.allSucceeded(), () -> String.valueOf(result.failures()));
        for (int i = 0; i < 500; i++) {
          assertEquals("local " + i + "|session " + i, result.outcome(i).value(), mode + ", session " + i);
        }
      }
    }
  }

  @Test
  void aLibrarysThreadLocalIsRefusedUnlessAThreadContextCarriesIt() throws Exception {
    Class<? extends SessionTask<String>> shape = task(RefusedShapesTest.class.getClassLoader(), LIBRARY_SHAPE);
    try (SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1)).connector(pipes)
        .address(server.address()).instrument(CLIENT).build()) {
      NotInstrumentableException e = assertThrows(NotInstrumentableException.class, () -> runner.run(shape, 500));
      assertRefusal(Map.entry(LIBRARY_SHAPE, SHAPES.get(LIBRARY_SHAPE)), e);
    }
    try (SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1)).connector(pipes)
        .address(server.address()).instrument(CLIENT).carry(new LibraryContext()).build()) {
      // Carried: not refused (the sessions' results are the client-shapes suite's business).
      assertTrue(runner.classLoader().report().problems().stream()
          .anyMatch(p -> p.className().equals("io.weft.continuations.testoutside.Library")));
    }
    assertEquals(0, pipes.peakOpenTransports(), "no session may start");
  }

  @Test
  void codeNoTaskReachesIsNeverAProblem() throws Exception {
    try (SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1)).connector(pipes)
        .address(server.address()).instrument(CLIENT).build()) {
      // ReadingToString reads in toString and in its iterator, and no task makes one.
      for (InstrumentationReport.Problem p : runner.classLoader().report().problems()) {
        assertFalse(p.className().startsWith(P + "ReadingToString"), p.toString());
        assertFalse(p.className().equals(P + "ToStringTask"), p.toString());
      }
    }
  }

  @Test
  void withProblemsAllowedTheToolWritesEveryClassItCanAndListsTheRest() throws Exception {
    Path classes = temp.resolve("generated");
    // Two tasks: one small, one whose run has so many waits that its rewrite exceeds the JVM's
    // 64 KiB limit on a method's code, which JavaFlow's transformer cannot write.
    write(classes, "gen/SmallTask", 1);
    write(classes, "gen/HugeTask", 4000);
    String classpath = ChildJvm.codeSource(Transport.class).toString();
    Path refused = temp.resolve("refused-out");
    RewriteRun strict = RewriteRun.of("--classes", classes.toString(), "--packages", "gen", "--classpath", classpath,
        "--output", refused.toString());
    assertEquals(1, strict.code(), strict.out() + strict.err());
    assertTrue(strict.err().contains("the JavaFlow transformer failed on gen.HugeTask"), strict.err());
    assertFalse(Files.exists(refused), "nothing may be written");

    Path out = temp.resolve("allowed-out");
    RewriteRun tool = RewriteRun.of("--classes", classes.toString(), "--packages", "gen", "--classpath", classpath,
        "--output", out.toString(), "--allow-problems");
    assertEquals(0, tool.code(), tool.out() + tool.err());
    assertTrue(tool.out().contains("rewrote gen.SmallTask: run"), tool.out());
    assertTrue(tool.err().contains("weft rewrite: warning: not rewritten, left as compiled: gen.HugeTask: "), tool.err());
    assertTrue(tool.out().contains("1 classes rewritten, 0 already rewritten, 1 could not be rewritten"), tool.out());
    assertTrue(ClassRewriter.isMarked(Files.readAllBytes(out.resolve("gen/SmallTask.class"))));
    assertFalse(ClassRewriter.isMarked(Files.readAllBytes(out.resolve("gen/HugeTask.class"))));
  }

  /** A task class whose run flushes {@code waits} times, then returns null. */
  private static void write(Path dir, String internal, int waits) throws Exception {
    ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_FRAMES);
    cw.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_FINAL,
        internal, null, "java/lang/Object", new String[] {"io/weft/transport/SessionTask"});
    MethodVisitor init = cw.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
    init.visitCode();
    init.visitVarInsn(Opcodes.ALOAD, 0);
    init.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
    init.visitInsn(Opcodes.RETURN);
    init.visitMaxs(1, 1);
    init.visitEnd();
    MethodVisitor run = cw.visitMethod(Opcodes.ACC_PUBLIC, "run",
        "(Lio/weft/transport/Transport;I)Ljava/lang/Object;", null, new String[] {"java/io/IOException"});
    run.visitCode();
    for (int i = 0; i < waits; i++) {
      run.visitVarInsn(Opcodes.ALOAD, 1);
      run.visitMethodInsn(Opcodes.INVOKEINTERFACE, "io/weft/transport/Transport", "flush", "()V", true);
    }
    run.visitInsn(Opcodes.ACONST_NULL);
    run.visitInsn(Opcodes.ARETURN);
    run.visitMaxs(0, 0);
    run.visitEnd();
    cw.visitEnd();
    Path file = dir.resolve(internal + ".class");
    Files.createDirectories(file.getParent());
    Files.write(file, cw.toByteArray());
  }


  /** The shape's method is refused, once, with its chain; every problem names a different method. */
  static void assertRefusal(Map.Entry<String, String[]> shape, NotInstrumentableException e) {
    Set<String> methods = new HashSet<>();
    InstrumentationReport.Problem found = null;
    for (InstrumentationReport.Problem p : e.problems()) {
      String method = p.className() + "." + p.methodName() + p.descriptor();
      assertTrue(methods.add(method), "one refusal per method: " + e.getMessage());
      if (method.equals(shape.getValue()[0])) {
        found = p;
      }
    }
    assertNotNull(found, shape.getKey() + ": " + e.getMessage());
    assertTrue(found.message().contains(": " + shape.getValue()[1] + ". "), e.getMessage());
    assertTrue(e.getMessage().contains(shape.getValue()[0] + ": "), e.getMessage());
  }

  @SuppressWarnings("unchecked")
  static <T> Class<? extends SessionTask<T>> task(ClassLoader loader, String simpleName) throws ClassNotFoundException {
    return (Class<? extends SessionTask<T>>) Class.forName(CLIENT + "." + simpleName, false, loader);
  }
}
