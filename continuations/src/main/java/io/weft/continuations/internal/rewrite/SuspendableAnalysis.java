package io.weft.continuations.internal.rewrite;

import io.weft.continuations.InstrumentationReport.Problem;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.objectweb.asm.Opcodes;

/**
 * Works out which methods of the in-scope classes can suspend, and which session tasks can reach
 * a wait through a frame that can never be rewritten. The whole-program analysis behind every way
 * of rewriting, in parts with one job each:
 *
 * <ol>
 *   <li>{@link ClassIndex} reads the classes ({@link ClassScanner}) and answers hierarchy
 *       questions; the call-site redirects of the {@link RewriteRules} are applied to the
 *       in-scope classes' calls there, so everything after sees the code that will run;
 *   <li>{@link Waits} says what waits (the transport API);
 *   <li>{@link Suspendables}: the fixpoint of what can suspend, which the rewrite marks
 *       {@code @continuable};
 *   <li>{@link CallGraph}: the edges out of each method, and whether each can be rewritten;
 *   <li>{@link WaitPaths}: the fixpoint of which methods can reach a wait, and by which edge;
 *   <li>{@link TaskWalk}: the walk from each task's {@code run}, asking each {@link SessionRule}
 *       ({@link SuspendPathRules} first) about what it reaches;
 *   <li>{@link LoaderSplit}: which classes an instrumenting loader must define itself.
 * </ol>
 *
 * <p>What no task can reach is never a problem. Built once, before any class is defined; then
 * read from any thread.
 */
public final class SuspendableAnalysis {
  /** Descriptor of JavaFlow's {@code @continuable}, which the engine rewrites by. */
  public static final String CONTINUABLE = ClassScanner.CONTINUABLE;

  private final ClassIndex index;
  private final Waits waits;
  private final Suspendables suspendables;
  private final TaskWalk walk;
  private final RewriteRules rules;
  private final Set<String> suspendingLambdas;
  private final Set<String> lambdaHosts;
  private final List<Problem> problems = new ArrayList<>();
  private final List<String> warnings = new ArrayList<>();

  /**
   * @param classBytes the bytes of a class by internal name, null if there is none
   * @param inScopeNames internal names of the classes to analyse and rewrite
   */
  public SuspendableAnalysis(Function<String, byte[]> classBytes, Collection<String> inScopeNames) {
    this(classBytes, inScopeNames, RewriteRules.DEFAULT);
  }

  /**
   * @param classBytes the bytes of a class by internal name, null if there is none
   * @param inScopeNames internal names of the classes to analyse and rewrite
   * @param rules the redirects and load-time checks beyond the built-in ones
   */
  public SuspendableAnalysis(Function<String, byte[]> classBytes, Collection<String> inScopeNames,
      RewriteRules rules) {
    this.rules = rules;
    this.index = new ClassIndex(classBytes, inScopeNames, rules.redirects());
    this.waits = new Waits(index);
    LambdaProxies proxies = new LambdaProxies(index);
    this.suspendables = new Suspendables(index, waits, proxies);
    CallGraph graph = new CallGraph(index, waits, proxies);
    Set<String> lambdas = new HashSet<>();
    Set<String> hosts = new HashSet<>();
    for (ClassInfo c : index.inScope()) {
      for (MethodInfo m : c.methods()) {
        for (MethodInfo.LambdaSite lambda : m.lambdas) {
          if (suspendables.bodyCanSuspend(lambda) && graph.rewritableLambda(m, lambda)) {
            lambdas.add(lambdaKey(m.ref, lambda.ordinal()));
            hosts.add(c.name);
          }
        }
      }
    }
    this.suspendingLambdas = Set.copyOf(lambdas);
    this.lambdaHosts = Set.copyOf(hosts);
    this.walk = new TaskWalk(index, graph, new WaitPaths(index, waits, graph), rules.walkRules());
    Set<MethodRef> seenProblems = new HashSet<>();
    Set<String> seenWarnings = new LinkedHashSet<>();
    for (ClassInfo c : index.inScope()) {
      if (walk.isTask(c)) {
        for (Problem p : walk.problems(c.name)) {
          if (seenProblems.add(MethodRef.of(p.className().replace('.', '/'), p.methodName(), p.descriptor()))) {
            problems.add(p);
          }
        }
        seenWarnings.addAll(walk.warnings(c.name));
      }
    }
    warnings.addAll(seenWarnings);
  }

  /**
   * True for the problem of a thread-local used by code that is not rewritten: a problem that a
   * {@code ThreadContext} naming its class takes away.
   */
  public static boolean isHeldThreadLocal(Problem p) {
    return p.message().startsWith(SuspendPathRules.HELD_THREAD_LOCAL + " ");
  }

  /** How {@link #suspendingLambdas} names a lambda site. */
  static String lambdaKey(MethodRef maker, int ordinal) {
    return maker + "#" + ordinal;
  }

  /** The rules this analysis applied; the rewrite applies the same redirects. */
  public RewriteRules rules() {
    return rules;
  }

  /**
   * The methods to mark {@code @continuable}: the suspendable ones of the in-scope classes, and
   * (in the bytes the engine reads) the waiting methods of the transport API.
   */
  public Set<MethodRef> marks() {
    synchronized (walk) {
      return marksLocked();
    }
  }

  private Set<MethodRef> marksLocked() {
    Set<MethodRef> marks = new HashSet<>();
    for (MethodRef m : suspendables.all()) {
      if (index.inScope(m.owner()) != null) {
        marks.add(m);
      }
    }
    marks.addAll(waits.apiMarks());
    return marks;
  }

  /**
   * The lambda sites whose class the rewrite has made at run time by
   * {@code SuspendingLambdas}, rewritten: those whose body can suspend and whose class can be
   * made so ({@link LambdaProxies}), as {@code owner.name(desc)#ordinal} of the method that makes
   * them.
   */
  public Set<String> suspendingLambdas() {
    synchronized (walk) {
      return suspendingLambdas;
    }
  }

  /**
   * The virtual and interface calls, as named in the instruction, that can suspend and can reach
   * an override the analysis does not see (a class found by name at run time, a JDK proxy): the
   * rewrite keeps their receiver in a local ({@link InterfaceCallSites}) and checks it at each
   * resume ({@link ResumeChecks}). A private or final method, or one of a final class, is left out:
   * the call can reach only the method the analysis saw.
   */
  Set<MethodRef> callsCheckedOnResume() {
    synchronized (walk) {
      Set<MethodRef> out = new HashSet<>();
      for (MethodRef call : suspendables.dispatchedCalls()) {
        MethodInfo declared = index.resolve(call);
        ClassInfo owner = index.info(call.owner());
        boolean bound = declared != null
            && ((declared.access & (Opcodes.ACC_PRIVATE | Opcodes.ACC_FINAL | Opcodes.ACC_STATIC)) != 0
                || (owner != null && (owner.access & Opcodes.ACC_FINAL) != 0));
        if (!bound) {
          out.add(call);
        }
      }
      return Set.copyOf(out);
    }
  }

  /**
   * The interface calls, as named in the instruction, that the rewrite marks for the engine in
   * the methods it marks ({@link InterfaceCallSites}): calls through a type that is not rewritten
   * ({@code Function.apply}) that can reach a lambda whose body can suspend.
   */
  Set<MethodRef> callsThroughOutsideTypes() {
    synchronized (walk) {
      return Set.copyOf(suspendables.callsThroughOutsideTypes());
    }
  }

  /**
   * Which monitors of method {@code m} the rewrite turns into session monitors; null if none
   * (its monitors, if any, cannot be held across a suspend, and stay plain).
   */
  SessionMonitorPass.Plan sessionMonitors(MethodRef m) {
    synchronized (walk) {
      ClassInfo c = index.inScope(m.owner());
      MethodInfo info = c == null ? null : c.method(m);
      if (info == null || (info.sessionRegions.isEmpty() && !info.sessionMethod)) {
        return null;
      }
      return new SessionMonitorPass.Plan(info.sessionRegions, info.sessionMethod);
    }
  }

  /** The methods of {@code className} that implement a waiting method of {@code Transport}. */
  public Set<MethodRef> transportWaits(String className) {
    synchronized (walk) {
      return waits.transportWaitsOf(className);
    }
  }

  /** The suspendable methods as {@code com.example.Client.name(desc)}, sorted: for the report. */
  public List<String> suspendableMethods() {
    Set<String> out = new TreeSet<>();
    for (MethodRef m : suspendables.all()) {
      out.add(m.toString());
    }
    return new ArrayList<>(out);
  }

  /** The problems some task in scope can reach, one per method. */
  public List<Problem> problems() {
    return problems;
  }

  public List<String> warnings() {
    return warnings;
  }

  /** Internal names of the in-scope classes. */
  public Set<String> classes() {
    return index.inScopeNames();
  }

  /**
   * The in-scope classes that must be rewritten, and so defined by an instrumenting loader: those
   * with a suspendable method or a redirected call, and those that must join them (see
   * {@link LoaderSplit}). Exceptions, records and plain data need neither.
   */
  public Set<String> classesToRewrite() {
    return new LoaderSplit(index).definedByChild(changedClasses());
  }

  /** The in-scope classes the rewrite changes: a method to mark, a call to redirect, or a lambda that can suspend. */
  public Set<String> changedClasses() {
    Set<String> changed = new HashSet<>(index.redirecting());
    changed.addAll(lambdaHosts);
    for (MethodRef m : suspendables.all()) {
      if (index.inScope(m.owner()) != null) {
        changed.add(m.owner());
      }
    }
    return changed;
  }

  /**
   * The classes among {@code child} (those an instrumenting loader defines) that reach a member
   * that is not public of an in-scope class the parent defines: the accessor pass's classes.
   */
  public Set<String> needingAccessors(Set<String> child) {
    synchronized (walk) {
      LoaderSplit split = new LoaderSplit(index);
      Set<String> out = new HashSet<>();
      for (String name : child) {
        ClassInfo c = index.inScope(name);
        if (c == null) {
          continue;
        }
        boolean needs = false;
        for (MethodRef m : c.methodUses) {
          needs |= split.needsAccessor(name, Opcodes.INVOKEVIRTUAL, m.owner(), m.name(), m.desc(),
              child);
        }
        for (ClassInfo.FieldUse f : c.fieldUses) {
          needs |= split.needsAccessor(name, Opcodes.GETFIELD, f.owner(), f.name(), null, child);
        }
        if (needs) {
          out.add(name);
        }
      }
      return out;
    }
  }

  /** The accessor pass's questions, answered for a loader that defines {@code child}. */
  CrossLoaderAccess.Needs accessorNeeds(Set<String> child) {
    LoaderSplit split = new LoaderSplit(index);
    return new CrossLoaderAccess.Needs() {
      @Override
      public boolean accessor(String from, int opcode, String owner, String name, String desc) {
        synchronized (walk) {
          if (opcode != Opcodes.NEW) {
            return split.needsAccessor(from, opcode, owner, name, desc, child);
          }
          ClassInfo c = index.info(from);
          if (c != null) {
            for (MethodRef m : c.methodUses) {
              if (m.owner().equals(owner) && m.name().equals("<init>")
                  && split.needsAccessor(from, Opcodes.INVOKESPECIAL, owner, m.name(), m.desc(),
                      child)) {
                return true;
              }
            }
          }
          return false;
        }
      }

      @Override
      public String superclass(String internal) {
        synchronized (walk) {
          ClassInfo c = index.info(internal);
          return c == null ? null : c.superName;
        }
      }

      @Override
      public boolean isInterface(String internal) {
        synchronized (walk) {
          ClassInfo c = index.info(internal);
          return c != null && (c.access & Opcodes.ACC_INTERFACE) != 0;
        }
      }
    };
  }

  /**
   * For the redirect pass: the method a call, as named in an instruction, links to (declared in
   * the class named or inherited), or null if the class is unknown.
   */
  public MethodRef declaring(MethodRef call) {
    synchronized (walk) {
      MethodInfo m = index.resolve(call);
      return m == null ? null : m.ref;
    }
  }

  /**
   * The problems that stand in the way of running {@code root} (internal name) as a session
   * task: those its {@code run} can reach. Empty for a class that is not a task.
   */
  public List<Problem> problemsReachableFrom(String root) {
    synchronized (walk) {
      ClassInfo c = index.inScope(root);
      return c == null || !walk.isTask(c) ? List.of() : walk.problems(root);
    }
  }
}
