package io.weft.continuations.internal.rewrite;

import static io.weft.continuations.internal.rewrite.CallGraph.dotted;
import static io.weft.continuations.internal.rewrite.TaskWalk.packageOf;
import static io.weft.continuations.internal.rewrite.TaskWalk.simple;

import io.weft.continuations.internal.rewrite.Edge.Kind;
import org.objectweb.asm.Opcodes;

/**
 * The built-in {@link SessionRule}: on a suspend path, every frame must be one the rewrite can
 * make suspend. In rewritten code, a call that can reach a wait through an edge that cannot be
 * rewritten is refused (a JDK type, a user object handed to JDK code, a lambda whose JDK-made class
 * cannot pass a suspend through, reflection, a
 * method handle, a constructor, a class outside the packages), and so is a {@code wait} or
 * {@code notify} inside a synchronized region that can suspend (its monitor is a session monitor,
 * which the thread's wait and notify know nothing of). A thread-local used by code that is not rewritten (whose calls cannot be redirected to
 * the session's values) is refused too, unless a {@code ThreadContext} carries it; a reflective
 * call the analysis cannot name is warned about. Each message says what, the chain, and how to fix it.
 */
final class SuspendPathRules implements SessionRule {
  static final SuspendPathRules INSTANCE = new SuspendPathRules();
  /** How the problem of a thread-local in code that is not rewritten starts. */
  static final String HELD_THREAD_LOCAL = "uses a ThreadLocal";

  private SuspendPathRules() {}

  @Override
  public void reached(Reach at) {
    MethodInfo m = at.method;
    if (!at.rewritten()) {
      CallSite local = threadLocalUse(at);
      if (local != null) {
        at.problem(m.ref, HELD_THREAD_LOCAL + " (line " + local.line() + ") and is not rewritten: a value it"
            + " keeps there while the session waits is another session's after the resume", at.chainTo(local),
            "Add package " + packageOf(m.ref.owner()) + " to instrument(...) (or to the Rewrite tool's or"
            + " the agent's packages), or carry its context across waits with"
            + " SessionRunner.Builder.carry(ThreadContext) naming " + dotted(m.ref.owner()));
      }
      return;
    }
    CallSite signal = signalOnSessionMonitor(m);
    if (signal != null) {
      at.problem(m.ref, "calls Object." + signal.name() + " (line " + signal.line() + ") inside a synchronized"
          + (m.sessionMethod && signal.monitors().isEmpty() ? " method" : " block (line " + signal.monitorLine()
          + ")") + " that can suspend: its monitor is held by the session across waits, and the thread's wait"
          + " and notify would neither release it nor reach the sessions waiting for it",
          at.chainTo(signal), "Wait with io.weft.continuations.SessionSemaphore (or Suspend.await) instead"
          + " of wait/notify, or move the reading out of the synchronized region");
    }
    if (m.reflectiveLine > 0 && !resolvesReflection(at)) {
      at.warning(dotted(m.ref.owner()) + "." + m.ref.signature() + " (line " + m.reflectiveLine + ") calls a"
          + " method through reflection or a method handle that the analysis cannot name: a suspend through"
          + " it fails at run time (NotInstrumentedError)");
    }
  }

  /**
   * The first {@code wait}, {@code notify} or {@code notifyAll} inside a region whose monitor the
   * rewrite makes a session monitor; null if none. Made through any type, since javac names the
   * receiver's static type.
   */
  private static CallSite signalOnSessionMonitor(MethodInfo m) {
    for (CallSite call : m.calls) {
      String name = call.name();
      String desc = call.target().type().getDescriptor();
      boolean signal = (name.equals("wait") && (desc.equals("()V") || desc.equals("(J)V") || desc.equals("(JI)V")))
          || ((name.equals("notify") || name.equals("notifyAll")) && desc.equals("()V"));
      if (!signal || call.opcode() == Opcodes.INVOKESTATIC) {
        continue;
      }
      if (m.sessionMethod) {
        return call;
      }
      for (int region : call.monitors()) {
        if (m.sessionRegions.contains(region)) {
          return call;
        }
      }
    }
    return null;
  }

  /** The first call in code that is not rewritten to a thread-local's get, set or remove; null if none. */
  private static CallSite threadLocalUse(Reach at) {
    for (CallSite call : at.calls()) {
      String owner = call.owner();
      String name = call.name();
      if ((owner.equals("java/lang/ThreadLocal") || owner.equals("java/lang/InheritableThreadLocal"))
          && (name.equals("get") || name.equals("set") || name.equals("remove"))) {
        return call;
      }
    }
    return null;
  }

  private static boolean resolvesReflection(Reach at) {
    for (Edge e : at.edges()) {
      if (e.kind() == Kind.REFLECTION || e.kind() == Kind.HANDLE) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void edge(Reach at, Edge e) {
    if (!at.rewritten() || !at.waits(e)) {
      return;
    }
    MethodInfo m = at.method;
    if (!e.kind().rewritable()) {
      edgeProblem(at, m, e, at.chainToWait(e));
    }
  }

  private static void edgeProblem(Reach at, MethodInfo m, Edge e, String chain) {
    String target = dotted(e.target().owner()) + "." + e.target().name();
    switch (e.kind()) {
      case CONSTRUCTOR:
        at.problem(m.ref, "calls a constructor that can suspend (line " + e.line() + "); a constructor"
            + " never can", chain, "Move the reading out of " + simple(e.target().owner()) + "'s constructor"
            + " into an ordinary method");
        break;
      case JDK_TYPE:
        at.problem(m.ref, "calls " + e.via() + " (line " + e.line() + "), which may run " + target
            + ", which can suspend; a call through a JDK type is never rewritten", chain,
            "Call it through your own type (" + simple(e.target().owner()) + "), not through " + e.via());
        break;
      case JDK_CALLER:
        at.problem(e.target(), "can suspend, but it overrides " + e.via() + ", and an object of "
            + simple(e.target().owner()) + " is handed to JDK code (made at line " + e.line() + " of "
            + simple(m.ref.owner()) + "." + m.name + "), whose calls through " + e.via() + " are never"
            + " rewritten (such as a BufferedReader over an InputStream)", chain,
            "Call the Transport directly, or read through your own type");
        break;
      case LAMBDA:
        at.problem(m.ref, "creates a lambda or method reference (line " + e.line() + ") for " + e.via()
            + " whose body can suspend, and the class the JDK makes for it cannot pass a suspend through: "
            + e.note(), chain, "Call it only from your own code (never hand it to JDK code such as"
            + " List.sort, streams or Optional), write a method reference Type::method as a lambda"
            + " (t, ...) -> t.method(...), or use a named class called through your own type, or a plain loop");
        break;
      case REFLECTION:
      case HANDLE:
        at.problem(m.ref, "calls " + target + " through " + e.via() + " (line " + e.line() + "), and it can"
            + " suspend; a " + (e.kind() == Kind.HANDLE ? "method handle" : "reflective call") + " is never"
            + " rewritten", chain, "Call " + simple(e.target().owner()) + "." + e.target().name() + " directly");
        break;
      case OUTSIDE:
        at.problem(m.ref, "calls " + target + " (line " + e.line() + "), which can suspend but is in "
            + packageOf(e.target().owner()) + ", outside the instrumented packages, so it is not rewritten",
            chain, "Add package " + packageOf(e.target().owner()) + " to instrument(...) (or to the Rewrite"
            + " tool's or the agent's packages)");
        break;
      case OUTSIDE_TYPE:
        at.problem(m.ref, "calls " + target + " (line " + e.line() + ") through " + e.via() + ", a type in "
            + packageOf(e.via().replace('.', '/')) + " outside the instrumented packages, whose calls are never"
            + " rewritten", chain, "Add package " + packageOf(e.via().replace('.', '/')) + " to instrument(...)"
            + " (or to the Rewrite tool's or the agent's packages), or call it through your own type");
        break;
      case NOT_REWRITTEN:
        at.problem(m.ref, "calls " + target + " (line " + e.line() + "), which is marked @continuable but"
            + " its class was not rewritten", chain, "Run the JavaFlow build step"
            + " (net.tascalate.javaflow.tools.maven, goal javaflow-enhance) over it");
        break;
      default:
        throw new AssertionError(e.kind());
    }
  }
}
