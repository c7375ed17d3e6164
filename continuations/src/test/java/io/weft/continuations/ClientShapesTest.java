package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weft.continuations.testclient.shapes.BridgeGenericShape;
import io.weft.continuations.testclient.shapes.ControlFlowShape;
import io.weft.continuations.testclient.shapes.DeepChainShape;
import io.weft.continuations.testclient.shapes.EnumConstantBodyShape;
import io.weft.continuations.testclient.shapes.FunctionShape;
import io.weft.continuations.testclient.shapes.InheritableShape;
import io.weft.continuations.testclient.shapes.InnerRecordEnumShape;
import io.weft.continuations.testclient.shapes.InterfaceShape;
import io.weft.continuations.testclient.shapes.JdkInterfacesShape;
import io.weft.continuations.testclient.shapes.LambdaShape;
import io.weft.continuations.testclient.shapes.LibraryContextShape;
import io.weft.continuations.testclient.shapes.MdcShape;
import io.weft.continuations.testclient.shapes.MethodRefShape;
import io.weft.continuations.testclient.shapes.MethodHandleShape;
import io.weft.continuations.testclient.shapes.OutsideDeepLastShape;
import io.weft.continuations.testclient.shapes.OutsideFirstShape;
import io.weft.continuations.testclient.shapes.OutsideLastShape;
import io.weft.continuations.testclient.shapes.PrimitivesShape;
import io.weft.continuations.testclient.shapes.ProxyShape;
import io.weft.continuations.testclient.shapes.ReceiverShape;
import io.weft.continuations.testclient.shapes.ReentrantLockShape;
import io.weft.continuations.testclient.shapes.ReflectionShape;
import io.weft.continuations.testclient.shapes.RequestContextShape;
import io.weft.continuations.testclient.shapes.SessionLocalShape;
import io.weft.continuations.testclient.shapes.SessionLockShape;
import io.weft.continuations.testclient.shapes.SynchronizedShape;
import io.weft.continuations.testclient.shapes.SynchronizedThrowingShape;
import io.weft.continuations.testclient.shapes.Shape;
import io.weft.continuations.testclient.shapes.ThreadLocalShape;
import io.weft.continuations.testing.EchoEveryReadSuspendsConnector;
import io.weft.continuations.testing.LibraryContext;
import io.weft.continuations.testing.RunContext;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import java.net.InetSocketAddress;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The client-shapes suite: each shape runs {@value #SESSIONS} sessions in
 * {@code continuations(1)} and {@code continuations(2)}, through the continuation loader and
 * through the {@code Rewrite} tool's output, and is compared session by session with SYNC.
 * A shape either gives SYNC's results with every read suspended, or is refused at load time, or
 * (where the analysis cannot see it) fails every session with a {@link NotInstrumentedError}
 * naming the frame that was not rewritten, with no body run twice. Never a wrong value.
 *
 * <p>Adding a shape is one line in {@link #SHAPES}. The transport makes every read suspend, so a
 * frame that cannot suspend meets a real suspend every run, not by timing.
 */
class ClientShapesTest {
  static final int SESSIONS = 500;
  private static final String CLIENT = "io.weft.continuations.testclient";

  /** What a shape must do in continuation mode. */
  enum Expect {
    /** The same value as in SYNC for every session, with reads suspended. */
    SAME_AS_SYNC,
    /** Refused at load time, or every session fails with NotInstrumentedError naming the frame. */
    NOT_INSTRUMENTED
  }

  /**
   * One shape of the suite.
   *
   * @param frame for {@link Expect#NOT_INSTRUMENTED}: how the class of the frame that was not
   *     rewritten starts, as the error names it
   */
  record Case(Class<? extends Shape> type, Expect expect, String frame, boolean debugFrames) {
    static Case works(Class<? extends Shape> type) {
      return new Case(type, Expect.SAME_AS_SYNC, null, false);
    }

    static Case caught(Class<? extends Shape> type, String frame) {
      return new Case(type, Expect.NOT_INSTRUMENTED, frame, false);
    }

    Case debug() {
      return new Case(type, expect, frame, true);
    }

    @Override
    public String toString() {
      return type.getSimpleName() + (debugFrames ? " (debugFrames)" : "");
    }
  }

  static final List<Case> SHAPES = List.of(
      Case.works(DeepChainShape.class),
      Case.works(InterfaceShape.class),
      // Overridable calls through this, a parameter never assigned and one assigned in the call.
      Case.works(ReceiverShape.class),
      Case.works(BridgeGenericShape.class),
      Case.works(BridgeGenericShape.class).debug(),
      Case.works(DeepChainShape.class).debug(),
      Case.works(InnerRecordEnumShape.class),
      Case.works(ControlFlowShape.class),
      Case.works(PrimitivesShape.class),
      // An enum constant's own method: JavaFlow's build step had marked the enum @Skip, which hid
      // it from the rewrite; the rewrite now drops that mark when nothing in the class was rewritten.
      Case.works(EnumConstantBodyShape.class),
      Case.caught(ReflectionShape.class, "io.weft.continuations.testclient.shapes.ReflectionShape"),
      Case.caught(MethodHandleShape.class, "io.weft.continuations.testclient.shapes.MethodHandleShape"),
      Case.caught(OutsideFirstShape.class, "io.weft.continuations.testoutside.OutsideReads"),
      Case.caught(OutsideLastShape.class, "io.weft.continuations.testoutside.OutsideReads"),
      Case.caught(OutsideDeepLastShape.class, "io.weft.continuations.testoutside.OutsideReads"),
      Case.caught(OutsideLastShape.class, "io.weft.continuations.testoutside.OutsideReads").debug(),
      Case.caught(ReentrantLockShape.class, "java.util.concurrent.locks.ReentrantLock").debug(),
      Case.works(SessionLockShape.class),
      Case.works(SessionLockShape.class).debug(),
      Case.works(SessionLocalShape.class),
      Case.works(MdcShape.class),
      Case.works(ThreadLocalShape.class),
      Case.works(RequestContextShape.class),
      Case.works(InheritableShape.class),
      Case.works(LibraryContextShape.class),
      Case.works(SynchronizedShape.class),
      Case.works(SynchronizedShape.class).debug(),
      Case.works(SynchronizedThrowingShape.class),
      Case.works(LambdaShape.class),
      Case.works(LambdaShape.class).debug(),
      Case.works(MethodRefShape.class),
      Case.works(MethodRefShape.class).debug(),
      // JDK functional interfaces called only by the client's code: the calls are marked for the engine.
      Case.works(FunctionShape.class),
      Case.works(FunctionShape.class).debug(),
      Case.works(JdkInterfacesShape.class),
      Case.works(JdkInterfacesShape.class).debug(),
      // A JDK proxy swallows the suspend: caught when the session resumes, before the handler runs again.
      Case.caught(ProxyShape.class, "jdk.proxy"));

  /** How the task classes are rewritten. */
  enum Route { LOADER, REWRITE_TOOL }

  private static final Map<Class<?>, List<Outcome<String>>> SYNC = new ConcurrentHashMap<>();
  private static URLClassLoader rewritten;

  static Stream<Arguments> runs() {
    List<Arguments> all = new ArrayList<>();
    for (Route route : Route.values()) {
      for (Case c : SHAPES) {
        for (int workers = 1; workers <= 2; workers++) {
          all.add(Arguments.of(c, workers, route));
        }
      }
    }
    return all.stream();
  }

  /** What the inheritable thread-local shape must find in every mode: this thread starts every run. */
  @BeforeAll
  static void setInheritedValue() {
    RunContext.INHERITED.set(RunContext.VALUE);
  }

  @AfterAll
  static void closeLoader() throws Exception {
    RunContext.INHERITED.remove();
    if (rewritten != null) {
      rewritten.close();
    }
  }

  @ParameterizedTest(name = "{0} in continuations({1}) through {2}")
  @MethodSource("runs")
  void shapeRunsAsInSyncOrIsCaughtNamingTheFrame(Case shape, int workers, Route route) throws Exception {
    List<Outcome<String>> sync = SYNC.computeIfAbsent(shape.type(), ClientShapesTest::runSync);
    Class<? extends SessionTask<String>> type = taskClass(shape, route);
    AtomicIntegerArray runs = new AtomicIntegerArray(2 * SESSIONS);
    try (EchoEveryReadSuspendsConnector connector = new EchoEveryReadSuspendsConnector();
         SessionRunner runner = builder(connector, route).mode(Mode.continuations(workers))
             .debugFrames(shape.debugFrames()).build()) {
      RunResult<String> result;
      try {
        result = runner.run(type, SESSIONS, runs);
      } catch (NotInstrumentableException refused) {
        assertTrue(shape.expect() == Expect.NOT_INSTRUMENTED, "refused at load time: " + refused.getMessage());
        assertFalse(refused.problems().isEmpty(), refused.getMessage());
        assertEquals(0, connector.waits(), "no session may start");
        return;
      }
      for (int n = 0; n < SESSIONS; n++) {
        int i = n;
        Outcome<String> o = result.outcome(i);
        assertTrue(runs.get(2 * i) <= 1, "session " + i + " entered its body " + runs.get(2 * i) + " times");
        if (shape.expect() == Expect.SAME_AS_SYNC) {
          assertEquals(Outcome.Status.SUCCEEDED, o.status(), () -> o + ": " + o.failure());
          assertEquals(sync.get(i).value(), o.value(), "session " + i);
          assertEquals(1, runs.get(2 * i + 1), "session " + i + " returned from its body once");
        } else {
          assertEquals(Outcome.Status.FAILED, o.status(), "session " + i + ": " + o);
          NotInstrumentedError e = assertInstanceOf(NotInstrumentedError.class, o.failure(),
              () -> "session " + i + ": " + o.failure());
          assertNotNull(e.className(), e.getMessage());
          assertTrue(e.className().startsWith(shape.frame()), e.getMessage());
          assertTrue(e.getMessage().contains("Fix: "), e.getMessage());
          assertEquals(0, runs.get(2 * i + 1), "session " + i + " returned from its body: " + o);
        }
      }
      assertTrue(connector.waits() >= SESSIONS, "every session suspends: " + connector.waits());
      assertEquals(0, connector.openTransports());
    }
  }

  /** The session utilities on ordinary threads: the same shapes, in THREADS and VIRTUAL_THREADS. */
  static Stream<Arguments> threadModes() {
    List<Arguments> all = new ArrayList<>();
    for (Class<?> type : List.of(SessionLockShape.class, SessionLocalShape.class, MdcShape.class,
        ThreadLocalShape.class, RequestContextShape.class, InheritableShape.class, LibraryContextShape.class,
        SynchronizedShape.class, SynchronizedThrowingShape.class, LambdaShape.class, MethodRefShape.class,
        FunctionShape.class, JdkInterfacesShape.class, ProxyShape.class)) {
      all.add(Arguments.of(type.getSimpleName(), type, Mode.THREADS));
      all.add(Arguments.of(type.getSimpleName(), type, Mode.VIRTUAL_THREADS));
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0} in {2}")
  @MethodSource("threadModes")
  void sessionUtilitiesGiveSyncResultsOnThreads(String name, Class<? extends SessionTask<String>> type, Mode mode)
      throws Exception {
    assumeTrue(mode.kind() != Mode.Kind.VIRTUAL_THREADS || Runtime.version().feature() >= 21, "JDK 21+");
    List<Outcome<String>> sync = SYNC.computeIfAbsent(type, ClientShapesTest::runSync);
    AtomicIntegerArray runs = new AtomicIntegerArray(2 * SESSIONS);
    try (EchoEveryReadSuspendsConnector connector = new EchoEveryReadSuspendsConnector();
         SessionRunner runner = builder(connector, Route.LOADER).mode(mode).build()) {
      RunResult<String> result = runner.run(type, SESSIONS, runs);
      assertTrue(result.allSucceeded(), () -> String.valueOf(result.failures().get(0)));
      for (int i = 0; i < SESSIONS; i++) {
        assertEquals(sync.get(i).value(), result.outcome(i).value(), "session " + i);
      }
      assertTrue(connector.waits() >= SESSIONS);
    }
  }

  private static List<Outcome<String>> runSync(Class<?> type) {
    AtomicIntegerArray runs = new AtomicIntegerArray(2 * SESSIONS);
    try (EchoEveryReadSuspendsConnector connector = new EchoEveryReadSuspendsConnector();
         SessionRunner runner = builder(connector, Route.LOADER).mode(Mode.SYNC).build()) {
      @SuppressWarnings("unchecked")
      RunResult<String> result = runner.run((Class<? extends SessionTask<String>>) type, SESSIONS, runs);
      assertTrue(result.allSucceeded(), () -> "SYNC: " + result.failures().get(0));
      return result.outcomes();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  private static SessionRunner.Builder builder(EchoEveryReadSuspendsConnector connector, Route route) {
    SessionRunner.Builder b = SessionRunner.builder().connector(connector)
        .address(InetSocketAddress.createUnresolved("shapes", 1)).timeout(Timeout.of(60, TimeUnit.SECONDS))
        .carry(new LibraryContext());
    return route == Route.LOADER ? b.instrument(CLIENT) : b.alreadyRewritten();
  }

  @SuppressWarnings("unchecked")
  private static Class<? extends SessionTask<String>> taskClass(Case shape, Route route) throws Exception {
    if (route == Route.LOADER) {
      return (Class<? extends SessionTask<String>>) (Class<?>) shape.type();
    }
    return (Class<? extends SessionTask<String>>) Class.forName(shape.type().getName(), false, rewrittenLoader());
  }

  /** The Rewrite tool's output of the test clients, bound to process-test-classes in the pom. */
  private static synchronized ClassLoader rewrittenLoader() throws Exception {
    if (rewritten == null) {
      String dir = System.getProperty("weft.rewrittenTestClasses");
      assumeTrue(dir != null && Files.isDirectory(Paths.get(dir)), "no Rewrite tool output (run through Maven)");
      ClassLoader app = ClientShapesTest.class.getClassLoader();
      ClassLoader withoutClients = new ClassLoader("without-test-clients", app) {
        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
          if (name.startsWith(CLIENT + ".")) {
            throw new ClassNotFoundException(name);
          }
          return super.loadClass(name, resolve);
        }
      };
      rewritten = new URLClassLoader(new URL[] {Path.of(dir).toUri().toURL()}, withoutClients);
    }
    return rewritten;
  }

}
