package io.weft.continuations.testing;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.Mode;
import io.weft.continuations.NotInstrumentableException;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.continuations.testclient.LambdaTask;
import io.weft.continuations.NotInstrumentedError;
import io.weft.continuations.testclient.LineTesterTask;
import io.weft.continuations.testclient.shapes.BridgeGenericShape;
import io.weft.continuations.testclient.shapes.DeepChainShape;
import io.weft.continuations.testclient.shapes.FunctionShape;
import io.weft.continuations.testclient.shapes.JdkInterfacesShape;
import io.weft.continuations.testclient.shapes.InheritableShape;
import io.weft.continuations.testclient.shapes.LambdaShape;
import io.weft.continuations.testclient.shapes.LibraryContextShape;
import io.weft.continuations.testclient.shapes.MethodRefShape;
import io.weft.continuations.testclient.shapes.OutsideLastShape;
import io.weft.continuations.testclient.shapes.ProxyShape;
import io.weft.continuations.testclient.shapes.ReflectionShape;
import io.weft.continuations.testclient.shapes.RequestContextShape;
import io.weft.continuations.testclient.shapes.SessionLockShape;
import io.weft.continuations.testclient.shapes.Shape;
import io.weft.continuations.testclient.shapes.SynchronizedShape;
import io.weft.continuations.testclient.shapes.SynchronizedThrowingShape;
import io.weft.continuations.testclient.shapes.ThreadLocalShape;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicIntegerArray;
import io.weft.transport.Timeout;
import java.util.concurrent.TimeUnit;

/**
 * The main AgentTest starts in a child JVM with {@code -javaagent:...=io.weft.continuations.testclient}:
 * it runs the plain test clients, loaded by the ordinary class loader, with
 * {@code alreadyRewritten()}, and prints what happened for the test to check.
 */
public final class AgentChild {
  private AgentChild() {}

  public static void main(String[] args) throws Exception {
    int sessions = Integer.parseInt(args[0]);
    try (PipeEchoServer server = new PipeEchoServer(1, TimeUnit.MILLISECONDS);
         PipeConnector pipes = new PipeConnector()) {
      SessionRunner.Builder builder = SessionRunner.builder().connectPacing(ConnectPacing.NONE).mode(Mode.continuations(1)).connector(pipes)
          .address(server.address()).timeout(Timeout.of(30, TimeUnit.SECONDS)).alreadyRewritten();
      try (SessionRunner runner = builder.build()) {
        RunResult<String> result = runner.run(LineTesterTask.class, sessions, 3);
        int right = 0;
        for (Outcome<String> o : result.outcomes()) {
          if ((o.index() + ":3:" + 3 * ("session " + o.index() + " line 0").length()).equals(o.value())) {
            right++;
          }
        }
        System.out.println("loaded by " + LineTesterTask.class.getClassLoader().getName());
        System.out.println("succeeded " + result.count(Outcome.Status.SUCCEEDED) + " of " + sessions
            + ", right values " + right + ", suspends " + pipes.suspends()
            + ", peak open " + pipes.peakOpenTransports());
        if (!result.allSucceeded()) {
          System.out.println("first failure: " + result.failures().get(0));
        }
        try {
          runner.run(LambdaTask.class, 1);
          System.out.println("lambda task ran");
        } catch (NotInstrumentableException e) {
          System.out.println("lambda task refused: " + e.problems().get(0).className());
        }
      }
      try (SessionRunner debug = builder.debugFrames(true).build()) {
        RunResult<String> result = debug.run(LineTesterTask.class, 20, 2);
        System.out.println("debug frames: succeeded " + result.count(Outcome.Status.SUCCEEDED) + " of 20"
            + (result.allSucceeded() ? "" : ", first failure " + result.failures().get(0)));
      }
    }
    // The inheritable thread-local shape finds this in every mode: this thread starts every run.
    RunContext.INHERITED.set(RunContext.VALUE);
    for (Class<? extends Shape> shape : List.of(DeepChainShape.class, BridgeGenericShape.class,
        SessionLockShape.class, ReflectionShape.class, OutsideLastShape.class, ThreadLocalShape.class,
        RequestContextShape.class, InheritableShape.class, LibraryContextShape.class, SynchronizedShape.class,
        SynchronizedThrowingShape.class, LambdaShape.class, MethodRefShape.class, FunctionShape.class,
        JdkInterfacesShape.class, ProxyShape.class)) {
      System.out.println("shape " + shape.getSimpleName() + ": " + shape(shape, sessions));
    }
  }

  /**
   * A shape of the client-shapes suite, as rewritten by the agent, in continuations(1) and in
   * continuations(2), each against SYNC session by session: "same as SYNC", "refused at load time",
   * "not instrumented, named X" when both modes give it, or what went wrong in the first that did not.
   */
  private static String shape(Class<? extends Shape> shape, int sessions) throws Exception {
    String one = shape(shape, sessions, 1);
    String two = shape(shape, sessions, 2);
    return one.equals(two) ? one : "WRONG: continuations(1) " + one + "; continuations(2) " + two;
  }

  private static String shape(Class<? extends Shape> shape, int sessions, int workers) throws Exception {
    AtomicIntegerArray syncRuns = new AtomicIntegerArray(2 * sessions);
    AtomicIntegerArray runs = new AtomicIntegerArray(2 * sessions);
    try (EchoEveryReadSuspendsConnector connector = new EchoEveryReadSuspendsConnector()) {
      SessionRunner.Builder builder = SessionRunner.builder().connector(connector)
          .address(InetSocketAddress.createUnresolved("shapes", 1)).timeout(Timeout.of(30, TimeUnit.SECONDS))
          .carry(new LibraryContext());
      RunResult<String> sync;
      try (SessionRunner runner = builder.mode(Mode.SYNC).build()) {
        sync = runner.run(shape, sessions, syncRuns);
      }
      RunResult<String> result;
      try (SessionRunner runner = builder.mode(Mode.continuations(workers)).alreadyRewritten().build()) {
        result = runner.run(shape, sessions, runs);
      } catch (NotInstrumentableException e) {
        return "refused at load time";
      }
      int same = 0;
      int notInstrumented = 0;
      int twice = 0;
      Set<String> named = new TreeSet<>();
      for (int i = 0; i < sessions; i++) {
        Outcome<String> o = result.outcome(i);
        if (runs.get(2 * i) > 1 || runs.get(2 * i + 1) > 1) {
          twice++;
        }
        if (o.status() == Outcome.Status.SUCCEEDED && o.value().equals(sync.outcome(i).value())) {
          same++;
        } else if (o.failure() instanceof NotInstrumentedError) {
          notInstrumented++;
          named.add(((NotInstrumentedError) o.failure()).className());
        }
      }
      if (same == sessions && twice == 0 && connector.waits() >= sessions) {
        return "same as SYNC";
      }
      if (notInstrumented == sessions && twice == 0) {
        return "not instrumented, named " + String.join(",", named);
      }
      return "WRONG: same " + same + ", not instrumented " + notInstrumented + ", twice " + twice
          + ", waits " + connector.waits();
    }
  }
}
