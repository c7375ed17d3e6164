package io.weft.continuations.internal.rewrite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.InstrumentationReport.Problem;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The rewriter's extension points: a call-site redirect rule changes the call sites of the classes
 * it rewrites (and the analysis judges the redirected code), and a session rule refuses what a
 * task can reach, with the chain, and nothing a task cannot reach.
 */
class RewritePassesTest {
  private static final String PASSES = "io.weft.continuations.passes";
  private static final String CLOCKED = "io/weft/continuations/passes/Clocked";
  private static final String FIXED = "io/weft/continuations/internal/rewrite/FixedClock";
  private static final CallSiteRedirect NANO_TIME = CallSiteRedirect.ofStatic(
      MethodRef.of("java/lang/System", "nanoTime", "()J"), FIXED, "nanoTime");
  private static final CallSiteRedirect SLEEP = CallSiteRedirect.ofStatic(
      MethodRef.of("java/lang/Thread", "sleep", "(J)V"), FIXED, "sleep");

  /** Refuses a thread started on a session's way, as a simulation must. */
  private static final SessionRule NO_THREADS = new SessionRule() {
    @Override
    public void reached(Reach at) {
      for (CallSite call : at.calls()) {
        if (call.target().equals(MethodRef.of("java/lang/Thread", "start", "()V"))) {
          at.problem(at.method(), "starts a thread (line " + call.line() + ")", at.chainTo(call),
              "Start no thread in a session");
        }
      }
    }
  };

  @Test
  void aRedirectedCallRunsTheRulesTarget() throws Exception {
    ClassLoader parent = getClass().getClassLoader();
    ClassRewriter rewriter = ClassRewriter.over(parent, ClassRewriter.prefixes(List.of(PASSES)), Set.of(),
        RewriteRules.DEFAULT.withRedirects(List.of(NANO_TIME)));
    assertTrue(rewriter.changes(CLOCKED), "a class with a redirected call is changed");
    assertTrue(rewriter.analysis().classesToRewrite().contains(CLOCKED), "and defined by the rewriting loader");
    try {
      PassLoader loader = new PassLoader(parent, rewriter);
      Class<?> clocked = loader.loadClass(CLOCKED.replace('/', '.'));
      assertSame(loader, clocked.getClassLoader());
      assertEquals(42L, clocked.getMethod("now").invoke(null));
      assertTrue(clocked.isAnnotationPresent(Rewritten.class));
    } finally {
      rewriter.release();
    }
  }

  @Test
  void withoutTheRuleTheCallStaysAndTheClassComesFromTheParent() {
    ClassRewriter rewriter = ClassRewriter.over(getClass().getClassLoader(),
        ClassRewriter.prefixes(List.of(PASSES)), Set.of());
    assertFalse(rewriter.changes(CLOCKED));
    assertFalse(rewriter.analysis().classesToRewrite().contains(CLOCKED));
    rewriter.release();
  }

  @Test
  void aCallRedirectedToASuspendingOperationMakesItsCallerSuspendable() {
    SuspendableAnalysis analysis = analysis(RewriteRules.DEFAULT.withRedirects(List.of(SLEEP)));
    assertTrue(analysis.marks().contains(MethodRef.of(CLOCKED, "nap", "()V")), analysis.marks().toString());
    assertFalse(analysis.marks().contains(MethodRef.of(CLOCKED, "now", "()J")));
    assertFalse(analysis(RewriteRules.DEFAULT).marks().contains(MethodRef.of(CLOCKED, "nap", "()V")));
  }

  @Test
  void aSessionRuleRefusesWhatATaskReachesWithTheChain() {
    SuspendableAnalysis analysis = analysis(RewriteRules.DEFAULT.withRules(List.of(NO_THREADS)));
    List<Problem> problems = analysis.problemsReachableFrom("io/weft/continuations/passes/ThreadStartingTask");
    assertEquals(1, problems.size(), problems.toString());
    Problem p = problems.get(0);
    assertEquals("io.weft.continuations.passes.ThreadStartingTask$Starter", p.className());
    assertEquals("start", p.methodName());
    assertTrue(p.message().matches("starts a thread \\(line \\d+\\): ThreadStartingTask\\.run \\(line \\d+\\)"
        + " → ThreadStartingTask\\$Starter\\.start \\(line \\d+\\) → Thread\\.start\\. Start no thread in a session"),
        p.message());
    assertEquals(problems, analysis.problems(), "the method no task reaches is no problem");
    assertTrue(analysis(RewriteRules.DEFAULT).problems().isEmpty());
  }

  @Test
  void aRedirectMustKeepTheCallsTypes() {
    MethodRef nanoTime = MethodRef.of("java/lang/System", "nanoTime", "()J");
    assertThrows(IllegalArgumentException.class,
        () -> new CallSiteRedirect(nanoTime, true, MethodRef.of(FIXED, "nanoTime", "()I")));
    assertThrows(IllegalArgumentException.class, () -> CallSiteRedirect.ofInstance(
        MethodRef.of("java/lang/Object", "<init>", "()V"), FIXED, "make"));
    CallSiteRedirect get = CallSiteRedirect.ofInstance(
        MethodRef.of("java/lang/ThreadLocal", "get", "()Ljava/lang/Object;"), FIXED, "get");
    assertEquals("(Ljava/lang/ThreadLocal;)Ljava/lang/Object;", get.to().desc());
    assertThrows(IllegalArgumentException.class,
        () -> new CallSiteRedirects(List.of(NANO_TIME, NANO_TIME)));
  }

  private SuspendableAnalysis analysis(RewriteRules rules) {
    ClassLoader loader = getClass().getClassLoader();
    List<String> names = List.of(CLOCKED, "io/weft/continuations/passes/ThreadStartingTask",
        "io/weft/continuations/passes/ThreadStartingTask$Starter");
    return new SuspendableAnalysis(internal -> ClassRewriter.bytes(loader, internal), names, rules);
  }

  /** Defines what the rewriter changes, rewritten, as the continuation loader does. */
  private static final class PassLoader extends ClassLoader {
    private final ClassRewriter rewriter;
    private final Set<String> here;

    PassLoader(ClassLoader parent, ClassRewriter rewriter) {
      super("passes", parent);
      this.rewriter = rewriter;
      this.here = rewriter.analysis().classesToRewrite();
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!here.contains(name.replace('.', '/'))) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> loaded = findLoadedClass(name);
        if (loaded != null) {
          return loaded;
        }
        byte[] bytes = rewriter.rewriteFrom(getParent(), name).bytes();
        return defineClass(name, bytes, 0, bytes.length);
      }
    }
  }
}
