package io.weft.continuations.internal.rewrite;

import io.weft.continuations.InstrumentationReport.Problem;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import org.objectweb.asm.AnnotationVisitor;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Works out which methods of the in-scope classes can suspend, and which session tasks can reach
 * a wait through a frame that can never be rewritten.
 *
 * <p>Suspendable (what the rewrite marks {@code @continuable}): a method that calls a waiting
 * {@code Transport} operation (every abstract method of {@code Transport} that declares an
 * exception), {@code Connector.connect}, {@code SessionTask.run}, a method marked
 * {@code @continuable} (a rewritten library transport), or any method that can suspend; through
 * supertypes and overrides both ways. A fixpoint over the call graph, as the engine decides call
 * sites: by owner, name and descriptor.
 *
 * <p>Problems are judged per method, from each task's {@code run}: a walk over every call edge
 * that can be resolved (static, special, virtual and interface calls with every known override,
 * lambdas, reflective and method-handle calls whose target is a constant), into classes outside
 * the instrumented packages too (read through the class path). A method is a problem only if the
 * task can reach it and it can reach a wait through an edge that cannot be rewritten: a call
 * through a JDK type, a user object handed to JDK code that calls its override, a lambda or
 * method reference, reflection, a method handle, a constructor, a class outside the packages;
 * or a monitor held across a suspend. Each problem carries the chain from the task to the wait.
 * What no task can reach is never a problem.
 */
public final class SuspendableAnalysis {
  public static final String CONTINUABLE = "Lorg/apache/commons/javaflow/api/continuable;";
  private static final String SKIP = "Lorg/apache/commons/javaflow/core/Skip;";
  private static final String TRANSPORT = "io/weft/transport/Transport";
  private static final String CONNECTOR = "io/weft/transport/Connector";
  private static final String SESSION_TASK = "io/weft/transport/SessionTask";
  private static final String TASK_RUN = "run(Lio/weft/transport/Transport;I)Ljava/lang/Object;";
  private static final String THREAD_LOCAL = "java/lang/ThreadLocal";
  /** A method by owner (internal name), name and descriptor. */
  public record MethodRef(String owner, String name, String desc) {
    String key() {
      return name + desc;
    }
  }

  private final Function<String, byte[]> classBytes;
  private final Map<String, ClassInfo> inScope = new TreeMap<>();
  private final Map<String, ClassInfo> outside = new HashMap<>();
  private final Set<MethodRef> suspendable = new LinkedHashSet<>();
  private final Map<String, Set<String>> subtypes = new HashMap<>();
  private final Map<MethodRef, Edge> waitsVia = new HashMap<>();
  private final Map<String, Walk> walks = new HashMap<>();
  private final List<Problem> problems = new ArrayList<>();
  private final List<String> warnings = new ArrayList<>();
  private Set<String> transportWaits;

  /**
   * @param classBytes the bytes of a class by internal name, null if there is none
   * @param inScopeNames internal names of the classes to analyse and rewrite
   */
  public SuspendableAnalysis(Function<String, byte[]> classBytes, Collection<String> inScopeNames) {
    this.classBytes = classBytes;
    for (String name : inScopeNames) {
      byte[] bytes = classBytes.apply(name);
      if (bytes != null) {
        inScope.put(name, parse(bytes, true, true));
      }
    }
    loadReferencedCode();
    for (ClassInfo c : codeClasses()) {
      for (String sup : allSupertypes(c)) {
        subtypes.computeIfAbsent(sup, k -> new HashSet<>()).add(c.name);
      }
    }
    fixpoint();
    waitFixpoint();
    Set<String> seenProblems = new HashSet<>();
    Set<String> seenWarnings = new LinkedHashSet<>();
    for (ClassInfo c : inScope.values()) {
      if (isTask(c)) {
        Walk walk = walk(c.name);
        for (Problem p : walk.problems) {
          if (seenProblems.add(p.className() + "." + p.methodName() + p.descriptor())) {
            problems.add(p);
          }
        }
        seenWarnings.addAll(walk.warnings);
      }
    }
    warnings.addAll(seenWarnings);
  }

  /** Method keys (name + descriptor) to mark {@code @continuable}, by internal class name. */
  public Map<String, Set<String>> marks() {
    Map<String, Set<String>> marks = new HashMap<>();
    for (MethodRef m : suspendable) {
      if (inScope.containsKey(m.owner())) {
        marks.computeIfAbsent(m.owner(), k -> new HashSet<>()).add(m.key());
      }
    }
    for (String api : List.of(TRANSPORT, CONNECTOR, SESSION_TASK)) {
      ClassInfo c = info(api);
      if (c != null) {
        for (MethodInfo m : c.methods.values()) {
          if (isApiWait(api, m.key())) {
            marks.computeIfAbsent(api, k -> new HashSet<>()).add(m.key());
          }
        }
      }
    }
    return marks;
  }

  /** The methods of {@code className} that implement a waiting method of {@code Transport}. */
  public Set<String> transportWaits(String className) {
    Set<String> keys = new HashSet<>();
    ClassInfo c = info(className);
    if (c != null) {
      for (MethodInfo m : c.methods.values()) {
        if (transportWaitKeys().contains(m.key())) {
          keys.add(m.key());
        }
      }
    }
    return keys;
  }

  public List<String> suspendableMethods() {
    Set<String> out = new TreeSet<>();
    for (MethodRef m : suspendable) {
      out.add(dotted(m.owner()) + "." + m.key());
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

  public Set<String> classes() {
    return inScope.keySet();
  }

  /**
   * The in-scope classes that must be rewritten, and so defined by an instrumenting loader: those
   * with a suspendable method, and those that refer to such a class (else they would link to the
   * parent's copy, which was not rewritten). Exceptions, records and plain data need neither.
   */
  public Set<String> classesToRewrite() {
    Set<String> out = new HashSet<>();
    for (MethodRef m : suspendable) {
      if (inScope.containsKey(m.owner())) {
        out.add(m.owner());
      }
    }
    boolean changed = true;
    while (changed) {
      changed = false;
      for (ClassInfo c : inScope.values()) {
        if (!out.contains(c.name) && mustJoin(c, out)) {
          out.add(c.name);
          changed = true;
        }
      }
    }
    return out;
  }

  /**
   * Must {@code c} be defined by the loader that defines {@code child}? Yes if it refers to one
   * of them (it would link to the parent's copy); if it is a nest mate of one (private access
   * between them needs one loader); or if one of them uses it, or a member of it, that is not
   * public: a class and the same package's classes of another loader are in different run-time
   * packages, which package-private and protected access cannot cross.
   */
  private boolean mustJoin(ClassInfo c, Set<String> child) {
    for (String ref : c.refs) {
      if (child.contains(ref)) {
        return true;
      }
    }
    if ((c.nestHost != null && child.contains(c.nestHost))) {
      return true;
    }
    for (String member : c.nestMembers) {
      if (child.contains(member)) {
        return true;
      }
    }
    for (String name : child) {
      ClassInfo user = inScope.get(name);
      if (user == null || !user.refs.contains(c.name)) {
        continue;
      }
      if ((c.access & Opcodes.ACC_PUBLIC) == 0) {
        return true;
      }
      for (MemberRef ref : user.memberRefs) {
        if (ref.owner.equals(c.name)) {
          Integer access = ref.field ? c.fields.get(ref.name) : accessOf(c, ref.name + ref.desc);
          if (access != null && (access & Opcodes.ACC_PUBLIC) == 0) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static Integer accessOf(ClassInfo c, String key) {
    MethodInfo m = c.methods.get(key);
    return m == null ? null : m.access;
  }

  /**
   * The problems that stand in the way of running {@code root} (internal name) as a session
   * task: those its {@code run} can reach. Empty for a class that is not a task.
   */
  public synchronized List<Problem> problemsReachableFrom(String root) {
    ClassInfo c = inScope.get(root);
    return c == null || !isTask(c) ? List.of() : walk(root).problems;
  }

  // ---- what waits

  private Set<String> transportWaitKeys() {
    if (transportWaits == null) {
      Set<String> keys = new HashSet<>();
      ClassInfo t = info(TRANSPORT);
      if (t != null) {
        for (MethodInfo m : t.methods.values()) {
          // Every operation that can block declares IOException; timeout(), isOpen(), close() do not.
          if ((m.access & Opcodes.ACC_ABSTRACT) != 0 && m.exceptions.length > 0) {
            keys.add(m.key());
          }
        }
      }
      transportWaits = keys;
    }
    return transportWaits;
  }

  private boolean isApiWait(String owner, String key) {
    switch (owner) {
      case TRANSPORT:
        return transportWaitKeys().contains(key);
      case CONNECTOR:
        return key.startsWith("connect(");
      case SESSION_TASK:
        return key.equals(TASK_RUN);
      default:
        return false;
    }
  }

  private static boolean isJdk(String name) {
    return Packages.isJdk(name);
  }

  /** Weft's runtime, JavaFlow and the libraries they share: their code is never walked. */
  private static boolean isRuntime(String name) {
    return Packages.isWeft(name) || Packages.isLibrary(name);
  }


  private boolean isTask(ClassInfo c) {
    return (c.access & (Opcodes.ACC_INTERFACE | Opcodes.ACC_ABSTRACT)) == 0
        && allSupertypes(c).contains(SESSION_TASK);
  }

  // ---- the suspendable fixpoint (what to mark)

  private void fixpoint() {
    boolean changed = true;
    while (changed) {
      changed = false;
      for (ClassInfo c : inScope.values()) {
        for (MethodInfo m : c.methods.values()) {
          MethodRef id = m.ref;
          if (suspendable.contains(id) || m.isInitializer()) {
            continue;
          }
          if (m.annotated || callsSuspendable(m) || overridesSuspendable(c, m)) {
            suspendable.add(id);
            changed = true;
          }
        }
      }
      // A call through a supertype is rewritten only if the supertype's method is marked too.
      for (MethodRef id : new ArrayList<>(suspendable)) {
        ClassInfo c = inScope.get(id.owner());
        if (c == null) {
          continue;
        }
        for (String sup : allSupertypes(c)) {
          ClassInfo t = inScope.get(sup);
          if (t != null && t.methods.containsKey(id.key()) && suspendable.add(new MethodRef(sup, id.name(), id.desc()))) {
            changed = true;
          }
        }
      }
    }
  }

  private boolean callsSuspendable(MethodInfo m) {
    for (Call call : m.calls) {
      if (isSuspendableCall(call)) {
        return true;
      }
    }
    return false;
  }

  private boolean isSuspendableCall(Call call) {
    if (call.name.equals("<init>") || call.name.equals("<clinit>")) {
      return false;
    }
    String key = call.name + call.desc;
    if (resolvesSuspendable(call.owner, key, new HashSet<>())) {
      return true;
    }
    if (call.opcode == Opcodes.INVOKEVIRTUAL || call.opcode == Opcodes.INVOKEINTERFACE) {
      for (String sub : subtypes.getOrDefault(call.owner, Set.of())) {
        if (suspendable.contains(new MethodRef(sub, call.name, call.desc))) {
          return true;
        }
      }
    }
    return false;
  }

  /** Does {@code owner} declare or inherit {@code key} as suspendable? */
  private boolean resolvesSuspendable(String owner, String key, Set<String> seen) {
    if (owner == null || !seen.add(owner)) {
      return false;
    }
    ClassInfo c = info(owner);
    if (c == null) {
      return false;
    }
    if (declaresSuspendable(c, key)) {
      return true;
    }
    if (resolvesSuspendable(c.superName, key, seen)) {
      return true;
    }
    for (String itf : c.interfaces) {
      if (resolvesSuspendable(itf, key, seen)) {
        return true;
      }
    }
    return false;
  }

  private boolean declaresSuspendable(ClassInfo c, String key) {
    MethodInfo m = c.methods.get(key);
    return m != null && (m.annotated || suspendable.contains(m.ref) || isApiWait(c.name, key));
  }

  private boolean overridesSuspendable(ClassInfo c, MethodInfo m) {
    if ((m.access & (Opcodes.ACC_STATIC | Opcodes.ACC_PRIVATE)) != 0) {
      return false;
    }
    Set<String> seen = new HashSet<>();
    seen.add(c.name);
    if (resolvesSuspendable(c.superName, m.key(), seen)) {
      return true;
    }
    for (String itf : c.interfaces) {
      if (resolvesSuspendable(itf, m.key(), seen)) {
        return true;
      }
    }
    return false;
  }

  // ---- the call graph

  private enum Kind {
    /** A call the rewrite can make suspendable. */
    OK,
    /** The wait itself. */
    WAIT,
    CONSTRUCTOR, JDK_TYPE, JDK_CALLER, LAMBDA, REFLECTION, HANDLE, OUTSIDE, OUTSIDE_TYPE, NOT_REWRITTEN;

    boolean rewritable() {
      return this == OK || this == WAIT;
    }
  }

  /**
   * One edge out of a method: the call at {@code line} to {@code target} (for a wait, the
   * waiting method itself). {@code via} names the type the call goes through when that is what
   * cannot be rewritten; {@code monitorLine} is the line of the enclosing {@code synchronized}
   * block, or 0.
   */
  private record Edge(int line, MethodRef target, Kind kind, String via, int monitorLine, boolean dispatch) {
    Edge(int line, MethodRef target, Kind kind, String via, int monitorLine) {
      this(line, target, kind, via, monitorLine, false);
    }
  }

  private List<Edge> edges(MethodInfo m) {
    if (m.edges != null) {
      return m.edges;
    }
    List<Edge> out = new ArrayList<>();
    ClassInfo self = info(m.ref.owner());
    for (Call call : m.calls) {
      String key = call.name + call.desc;
      if (call.name.equals("<clinit>")) {
        continue;
      }
      MethodRef wait = waitTarget(call.owner, key);
      if (wait != null && !call.name.equals("<init>")) {
        out.add(new Edge(call.line, wait, Kind.WAIT, null, call.monitorLine));
        continue;
      }
      if (call.name.equals("<init>")) {
        ClassInfo made = codeInfo(call.owner);
        if (made != null) {
          MethodInfo ctor = made.methods.get(key);
          if (ctor != null) {
            out.add(new Edge(call.line, ctor.ref, Kind.CONSTRUCTOR, null, call.monitorLine));
          }
          if (call.opcode == Opcodes.INVOKESPECIAL && !(self != null && self.name.equals(call.owner))) {
            jdkCallers(made, call, out);
          }
        }
        continue;
      }
      boolean dispatch = call.opcode == Opcodes.INVOKEVIRTUAL || call.opcode == Opcodes.INVOKEINTERFACE;
      if (isJdk(call.owner)) {
        if (dispatch) {
          for (MethodInfo sub : overrides(call.owner, key)) {
            out.add(new Edge(call.line, sub.ref, Kind.JDK_TYPE, dotted(call.owner) + "." + call.name,
                call.monitorLine, true));
          }
        }
        if (self != null && isReflectiveInvoke(call)) {
          boolean handle = call.owner.equals("java/lang/invoke/MethodHandle");
          for (Lookup lookup : self.lookups) {
            if (lookup.handle == handle) {
              for (MethodInfo target : named(lookup.owner, lookup.name)) {
                out.add(new Edge(call.line, target.ref, handle ? Kind.HANDLE : Kind.REFLECTION,
                    dotted(call.owner) + "." + call.name, call.monitorLine));
              }
            }
          }
        }
        continue;
      }
      MethodInfo declared = resolve(call.owner, key);
      MethodRef apiWait = declared == null ? null : waitTarget(declared.ref.owner(), key);
      if (apiWait != null) {
        out.add(new Edge(call.line, apiWait, Kind.WAIT, null, call.monitorLine));
        continue;
      }
      if (isRuntime(call.owner)) {
        // Weft's own suspending operations (a session-aware lock, say) come rewritten.
        if (declared != null && declared.annotated) {
          out.add(new Edge(call.line, declared.ref, Kind.WAIT, null, call.monitorLine));
        }
        continue;
      }
      ClassInfo owner = info(call.owner);
      boolean ownerRewritable = owner != null && (owner.inScope || owner.rewritten);
      Set<MethodInfo> targets = new LinkedHashSet<>();
      if (declared != null) {
        targets.add(declared);
      }
      Set<MethodInfo> overriding = dispatch ? new HashSet<>(overrides(call.owner, key)) : Set.of();
      targets.addAll(overriding);
      for (MethodInfo target : targets) {
        ClassInfo tc = info(target.ref.owner());
        Kind kind;
        if (target.annotated && tc.rewritten && !tc.inScope) {
          out.add(new Edge(call.line, target.ref, Kind.WAIT, null, call.monitorLine));
          continue;
        } else if (target.annotated && !tc.rewritten && !tc.inScope) {
          kind = Kind.NOT_REWRITTEN;
        } else if (!tc.inScope) {
          kind = Kind.OUTSIDE;
        } else if (!ownerRewritable) {
          kind = Kind.OUTSIDE_TYPE;
        } else {
          kind = Kind.OK;
        }
        out.add(new Edge(call.line, target.ref, kind, kind == Kind.OUTSIDE_TYPE ? dotted(call.owner) : null,
            call.monitorLine, overriding.contains(target) && target != declared));
      }
    }
    for (LambdaSite lambda : m.lambdas) {
      MethodInfo impl = resolve(lambda.impl.owner(), lambda.impl.key());
      if (impl != null) {
        out.add(new Edge(lambda.line, impl.ref, Kind.LAMBDA, dotted(lambda.iface), 0));
      }
    }
    m.edges = out;
    return out;
  }

  /**
   * Edges for an object of {@code made} (a user class) that JDK code may call: every method of it
   * that overrides a method of a JDK supertype. {@code close()} of {@code AutoCloseable} or
   * {@code Closeable} is left out: a try-with-resources on the user's own type calls it through
   * that type, which is rewritten; a call through the JDK type is an edge of its own.
   */
  private void jdkCallers(ClassInfo made, Call call, List<Edge> out) {
    if (isJdk(made.name)) {
      return;
    }
    Set<String> jdkSupers = new LinkedHashSet<>();
    for (String sup : allSupertypes(made)) {
      if (isJdk(sup)) {
        jdkSupers.add(sup);
      }
    }
    for (String sup : jdkSupers) {
      ClassInfo t = info(sup);
      if (t == null) {
        continue;
      }
      for (MethodInfo jm : t.methods.values()) {
        if (jm.isInitializer() || (jm.access & (Opcodes.ACC_STATIC | Opcodes.ACC_PRIVATE)) != 0) {
          continue;
        }
        if (jm.key().equals("close()V")
            && (sup.equals("java/lang/AutoCloseable") || sup.equals("java/io/Closeable"))) {
          continue;
        }
        MethodInfo impl = resolve(made.name, jm.key());
        if (impl != null && !isJdk(impl.ref.owner())) {
          out.add(new Edge(call.line, impl.ref, Kind.JDK_CALLER, dotted(sup) + "." + jm.name, call.monitorLine));
        }
      }
    }
  }

  /** The wait a call to {@code owner.key} is, or null. */
  private MethodRef waitTarget(String owner, String key) {
    for (String api : List.of(TRANSPORT, CONNECTOR, SESSION_TASK)) {
      if (owner.equals(api) && isApiWait(api, key)) {
        int paren = key.indexOf('(');
        return new MethodRef(api, key.substring(0, paren), key.substring(paren));
      }
    }
    return null;
  }

  /** The method a call to {@code owner.key} links to: declared there or inherited; null if unknown. */
  private MethodInfo resolve(String owner, String key) {
    ArrayDeque<String> todo = new ArrayDeque<>();
    Set<String> seen = new HashSet<>();
    todo.add(owner);
    while (!todo.isEmpty()) {
      String name = todo.poll();
      if (!seen.add(name)) {
        continue;
      }
      ClassInfo c = info(name);
      if (c == null) {
        continue;
      }
      MethodInfo m = c.methods.get(key);
      if (m != null) {
        return m;
      }
      if (c.superName != null) {
        todo.add(c.superName);
      }
      todo.addAll(List.of(c.interfaces));
    }
    return null;
  }

  /** Every known non-JDK method that overrides {@code owner.key}. */
  private List<MethodInfo> overrides(String owner, String key) {
    List<MethodInfo> out = new ArrayList<>();
    for (String sub : subtypes.getOrDefault(owner, Set.of())) {
      ClassInfo c = info(sub);
      MethodInfo m = c == null ? null : c.methods.get(key);
      if (m != null && (m.access & (Opcodes.ACC_STATIC | Opcodes.ACC_PRIVATE)) == 0 && !isJdk(sub)) {
        out.add(m);
      }
    }
    return out;
  }

  /** The methods named {@code name} of {@code owner}, for a reflective lookup. */
  private List<MethodInfo> named(String owner, String name) {
    List<MethodInfo> out = new ArrayList<>();
    ClassInfo c = info(owner);
    if (c != null) {
      for (MethodInfo m : c.methods.values()) {
        if (m.name.equals(name)) {
          out.add(m);
        }
      }
    }
    return out;
  }

  /** Which methods with code can reach a wait, and by which edge: a fixpoint, so chains are finite. */
  private void waitFixpoint() {
    boolean changed = true;
    while (changed) {
      changed = false;
      for (ClassInfo c : codeClasses()) {
        for (MethodInfo m : c.methods.values()) {
          if (waitsVia.containsKey(m.ref)) {
            continue;
          }
          for (Edge e : edges(m)) {
            // Not through JDK dispatch: which object a JDK call reaches is the walk's question
            // (made by the task or not), so it is judged there, per task.
            if (e.kind == Kind.JDK_TYPE || e.kind == Kind.JDK_CALLER) {
              continue;
            }
            if (e.kind == Kind.WAIT || canWait(e.target)) {
              waitsVia.put(m.ref, e);
              changed = true;
              break;
            }
          }
        }
      }
    }
  }

  /** Can {@code m} reach a wait, or is it one (a method reference or reflective target can be)? */
  private boolean canWait(MethodRef m) {
    if (waitsVia.containsKey(m) || waitTarget(m.owner(), m.key()) != null) {
      return true;
    }
    ClassInfo c = info(m.owner());
    MethodInfo mi = c == null ? null : c.methods.get(m.key());
    return mi != null && mi.annotated && c.rewritten && !c.inScope;
  }

  // ---- the walk from a task

  private static final class Walk {
    final List<Problem> problems = new ArrayList<>();
    final Set<String> warnings = new LinkedHashSet<>();
  }

  private Walk walk(String task) {
    Walk done = walks.get(task);
    if (done != null) {
      return done;
    }
    // A virtual or interface call reaches only objects of classes the task made: walk again
    // while the walk finds more classes made.
    Set<String> made = new HashSet<>();
    made.add(task);
    Walk walk;
    int before;
    do {
      before = made.size();
      walk = walk(task, made);
    } while (made.size() > before);
    walks.put(task, walk);
    return walk;
  }

  private boolean isMade(String owner, Set<String> made) {
    for (String x : made) {
      if (x.equals(owner)) {
        return true;
      }
      ClassInfo c = info(x);
      if (c != null && allSupertypes(c).contains(owner)) {
        return true;
      }
    }
    return false;
  }

  private Walk walk(String task, Set<String> made) {
    Walk walk = new Walk();
    MethodInfo root = resolve(task, TASK_RUN);
    if (root == null) {
      return walk;
    }
    Map<MethodRef, Edge> cameBy = new HashMap<>();
    Map<MethodRef, MethodRef> cameFrom = new HashMap<>();
    Set<String> reported = new HashSet<>();
    ArrayDeque<MethodInfo> todo = new ArrayDeque<>();
    Set<MethodRef> seen = new HashSet<>();
    todo.add(root);
    seen.add(root.ref);
    while (!todo.isEmpty()) {
      MethodInfo m = todo.poll();
      ClassInfo c = info(m.ref.owner());
      boolean rewritten = c.inScope;
      if (rewritten && canWait(m.ref)) {
        if ((m.access & Opcodes.ACC_SYNCHRONIZED) != 0) {
          Edge first = waitsVia.get(m.ref);
          problem(walk, reported, m, "is synchronized and can suspend (line " + first.line + "): a suspend"
              + " leaves its monitor, so other sessions enter it and mutual exclusion is lost",
              chain(cameFrom, cameBy, m.ref, null), "Drop synchronized, or guard the state with"
              + " io.weft.continuations.SessionLock, which suspends instead of blocking");
        }
        if (m.threadLocalLine > 0) {
          walk.warnings.add(dotted(c.name) + "." + m.key() + " (line " + m.threadLocalLine + ") uses a"
              + " ThreadLocal and can suspend: after a resume it may run on another worker thread and"
              + " see another session's value; use io.weft.continuations.SessionLocal");
        }
      }
      if (rewritten && m.reflectiveLine > 0) {
        boolean resolved = false;
        for (Edge e : edges(m)) {
          resolved |= e.kind == Kind.REFLECTION || e.kind == Kind.HANDLE;
        }
        if (!resolved) {
          walk.warnings.add(dotted(c.name) + "." + m.key() + " (line " + m.reflectiveLine + ") calls a method"
              + " through reflection or a method handle that the analysis cannot name: a suspend through it"
              + " fails at run time (NotInstrumentedError)");
        }
      }
      for (Call call : m.calls) {
        if (call.name.equals("<init>") && codeInfo(call.owner) != null) {
          made.add(call.owner);
        }
      }
      for (Edge e : edges(m)) {
        // A dispatch reaches an override only in an object of a class the task makes (itself
        // included): a subclass no task makes is never a problem of this one.
        if (e.dispatch && !isMade(e.target.owner(), made)) {
          continue;
        }
        boolean waits = e.kind == Kind.WAIT || canWait(e.target);
        if (waits && rewritten) {
          if (e.monitorLine > 0) {
            problem(walk, reported, m, "holds a synchronized block (line " + e.monitorLine + ") across a call"
                + " that can suspend (line " + e.line + "): a suspend leaves the monitor, so other sessions"
                + " enter it and mutual exclusion is lost", chain(cameFrom, cameBy, m.ref, e),
                "Move the call out of the block, or use io.weft.continuations.SessionLock");
          }
          if (!e.kind.rewritable()) {
            edgeProblem(walk, reported, m, e, chain(cameFrom, cameBy, m.ref, e));
          }
        }
        if (e.kind == Kind.WAIT) {
          continue;
        }
        MethodInfo target = method(e.target);
        if (target != null && seen.add(e.target)) {
          cameFrom.put(e.target, m.ref);
          cameBy.put(e.target, e);
          todo.add(target);
        }
      }
    }
    return walk;
  }

  private void edgeProblem(Walk walk, Set<String> reported, MethodInfo m, Edge e, String chain) {
    String target = dotted(e.target.owner()) + "." + e.target.name();
    switch (e.kind) {
      case CONSTRUCTOR:
        problem(walk, reported, m, "calls a constructor that can suspend (line " + e.line + "); a constructor"
            + " never can", chain, "Move the reading out of " + simple(e.target.owner()) + "'s constructor"
            + " into an ordinary method");
        break;
      case JDK_TYPE:
        problem(walk, reported, m, "calls " + e.via + " (line " + e.line + "), which may run " + target
            + ", which can suspend; a call through a JDK type is never rewritten", chain,
            "Call it through your own type (" + simple(e.target.owner()) + "), not through " + e.via);
        break;
      case JDK_CALLER: {
        MethodInfo over = method(e.target);
        problem(walk, reported, over, "can suspend, but it overrides " + e.via + ", and an object of "
            + simple(e.target.owner()) + " is handed to JDK code (made at line " + e.line + " of "
            + simple(m.ref.owner()) + "." + m.name + "), whose calls through " + e.via + " are never"
            + " rewritten (such as a BufferedReader over an InputStream)", chain,
            "Call the Transport directly, or read through your own type");
        break;
      }
      case LAMBDA:
        problem(walk, reported, m, "creates a lambda or method reference (line " + e.line + ") for " + e.via
            + " whose body can suspend; the class the JDK makes for a lambda at run time cannot be"
            + " rewritten", chain, "Use a named class that implements " + e.via
            + (e.via.startsWith("java.") ? " and is called through your own type, not through " + e.via : "")
            + ", or a plain loop");
        break;
      case REFLECTION:
      case HANDLE:
        problem(walk, reported, m, "calls " + target + " through " + e.via + " (line " + e.line + "), and it can"
            + " suspend; a " + (e.kind == Kind.HANDLE ? "method handle" : "reflective call") + " is never"
            + " rewritten", chain, "Call " + simple(e.target.owner()) + "." + e.target.name() + " directly");
        break;
      case OUTSIDE:
        problem(walk, reported, m, "calls " + target + " (line " + e.line + "), which can suspend but is in "
            + packageOf(e.target.owner()) + ", outside the instrumented packages, so it is not rewritten",
            chain, "Add package " + packageOf(e.target.owner()) + " to instrument(...) (or to the Rewrite"
            + " tool's or the agent's packages)");
        break;
      case OUTSIDE_TYPE:
        problem(walk, reported, m, "calls " + target + " (line " + e.line + ") through " + e.via + ", a type in "
            + packageOf(e.via.replace('.', '/')) + " outside the instrumented packages, whose calls are never"
            + " rewritten", chain, "Add package " + packageOf(e.via.replace('.', '/')) + " to instrument(...)"
            + " (or to the Rewrite tool's or the agent's packages), or call it through your own type");
        break;
      case NOT_REWRITTEN:
        problem(walk, reported, m, "calls " + target + " (line " + e.line + "), which is marked @continuable but"
            + " its class was not rewritten", chain, "Run the JavaFlow build step"
            + " (net.tascalate.javaflow.tools.maven, goal javaflow-enhance) over it");
        break;
      default:
        throw new AssertionError(e.kind);
    }
  }

  private void problem(Walk walk, Set<String> reported, MethodInfo m, String what, String chain, String fix) {
    if (!reported.add(m.ref.owner() + "." + m.key())) {
      return;
    }
    walk.problems.add(new Problem(dotted(m.ref.owner()), m.name, m.desc, what + ": " + chain + ". " + fix));
  }

  /**
   * {@code Task.run (line 9) → Client.retr (line 20) → Transport.readLine}: the path the walk
   * took to {@code to}, then {@code last} (or the method's own way to a wait), then down to the
   * wait. Bridge methods, which the compiler adds and the user never wrote, are left out.
   */
  private String chain(Map<MethodRef, MethodRef> cameFrom, Map<MethodRef, Edge> cameBy, MethodRef to, Edge last) {
    List<String> up = new ArrayList<>();
    MethodRef at = to;
    Edge out = last != null ? last : waitsVia.get(to);
    while (at != null) {
      MethodInfo mi = method(at);
      if (mi == null || (mi.access & Opcodes.ACC_BRIDGE) == 0) {
        up.add(0, step(at, out));
      }
      out = cameBy.get(at);
      at = cameFrom.get(at);
    }
    List<String> down = new ArrayList<>();
    Edge e = last != null ? last : waitsVia.get(to);
    Set<MethodRef> seen = new HashSet<>();
    while (e != null) {
      if (e.kind == Kind.JDK_TYPE || e.kind == Kind.REFLECTION || e.kind == Kind.HANDLE
          || e.kind == Kind.JDK_CALLER) {
        down.add(e.via + (e.kind == Kind.JDK_CALLER ? " (called by JDK code)" : ""));
      }
      if (e.kind == Kind.WAIT) {
        down.add(simple(e.target.owner()) + "." + e.target.name());
        break;
      }
      if (!seen.add(e.target)) {
        break;
      }
      Edge next = waitsVia.get(e.target);
      MethodInfo mi = method(e.target);
      if (mi == null || (mi.access & Opcodes.ACC_BRIDGE) == 0) {
        down.add(step(e.target, next));
      }
      e = next;
    }
    up.addAll(down);
    return String.join(" → ", up);
  }

  private static String step(MethodRef m, Edge out) {
    return simple(m.owner()) + "." + m.name() + (out != null && out.line > 0 ? " (line " + out.line + ")" : "");
  }

  private MethodInfo method(MethodRef ref) {
    ClassInfo c = info(ref.owner());
    return c == null ? null : c.methods.get(ref.key());
  }

  private static String simple(String internal) {
    return internal.substring(internal.lastIndexOf('/') + 1);
  }

  private static String packageOf(String internal) {
    int slash = internal.lastIndexOf('/');
    return slash < 0 ? "" : internal.substring(0, slash).replace('/', '.');
  }

  private static boolean isReflectiveInvoke(Call call) {
    return (call.owner.equals("java/lang/reflect/Method") && call.name.equals("invoke"))
        || (call.owner.equals("java/lang/invoke/MethodHandle") && call.name.startsWith("invoke"));
  }

  private static String dotted(String internalName) {
    return internalName.replace('/', '.');
  }

  // ---- class data

  /** Reads, with their code, the classes outside the scope that the scope's code refers to. */
  private void loadReferencedCode() {
    ArrayDeque<String> todo = new ArrayDeque<>();
    for (ClassInfo c : inScope.values()) {
      todo.addAll(c.refs);
    }
    Set<String> seen = new HashSet<>(inScope.keySet());
    while (!todo.isEmpty()) {
      String name = todo.poll();
      if (!seen.add(name)) {
        continue;
      }
      ClassInfo c = info(name);
      if (c != null && c.hasCode) {
        todo.addAll(c.refs);
      }
    }
  }

  private List<ClassInfo> codeClasses() {
    List<ClassInfo> out = new ArrayList<>(inScope.values());
    for (ClassInfo c : outside.values()) {
      if (c != null && c.hasCode) {
        out.add(c);
      }
    }
    return out;
  }

  private ClassInfo codeInfo(String name) {
    ClassInfo c = info(name);
    return c != null && c.hasCode ? c : null;
  }

  private Set<String> allSupertypes(ClassInfo c) {
    Set<String> out = new LinkedHashSet<>();
    ArrayDeque<String> todo = new ArrayDeque<>();
    if (c.superName != null) {
      todo.add(c.superName);
    }
    todo.addAll(List.of(c.interfaces));
    while (!todo.isEmpty()) {
      String name = todo.poll();
      if (!out.add(name)) {
        continue;
      }
      ClassInfo t = info(name);
      if (t != null) {
        if (t.superName != null) {
          todo.add(t.superName);
        }
        todo.addAll(List.of(t.interfaces));
      }
    }
    return out;
  }

  private ClassInfo info(String name) {
    ClassInfo c = inScope.get(name);
    if (c != null) {
      return c;
    }
    if (outside.containsKey(name)) {
      return outside.get(name);
    }
    byte[] bytes = name.startsWith("[") ? null : classBytes.apply(name);
    c = bytes == null ? null : parse(bytes, !isJdk(name) && !isRuntime(name), false);
    outside.put(name, c);
    return c;
  }

  private static ClassInfo parse(byte[] bytes, boolean withCode, boolean inScope) {
    ClassInfo info = new ClassInfo();
    ClassReader reader = new ClassReader(bytes);
    reader.accept(new ClassVisitor(Opcodes.ASM9) {
      @Override
      public void visit(int version, int access, String name, String sig, String superName, String[] itfs) {
        info.name = name;
        info.access = access;
        info.superName = superName;
        info.interfaces = itfs == null ? new String[0] : itfs;
        if (superName != null) {
          info.refs.add(superName);
        }
        info.refs.addAll(List.of(info.interfaces));
      }

      @Override
      public AnnotationVisitor visitAnnotation(String desc, boolean visible) {
        if (SKIP.equals(desc) || ClassRewriter.MARKER.equals(desc)) {
          info.rewritten = true;
        }
        return null;
      }

      @Override
      public void visitNestHost(String host) {
        info.nestHost = host;
      }

      @Override
      public void visitNestMember(String member) {
        info.nestMembers.add(member);
      }

      @Override
      public FieldVisitor visitField(int access, String name, String desc, String sig, Object v) {
        info.fields.put(name, access);
        return null;
      }

      @Override
      public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] ex) {
        MethodInfo m = new MethodInfo(new MethodRef(info.name, name, desc), access, ex == null ? new String[0] : ex);
        info.methods.put(m.key(), m);
        return new MethodVisitor(Opcodes.ASM9) {
          private int line;
          private int monitors;
          private int monitorLine;
          private String lastType;
          private String pendingOwner;
          private String pendingName;

          @Override
          public AnnotationVisitor visitAnnotation(String d, boolean visible) {
            if (CONTINUABLE.equals(d)) {
              m.annotated = true;
            }
            return null;
          }

          @Override
          public void visitLineNumber(int l, Label start) {
            line = l;
          }

          @Override
          public void visitInsn(int opcode) {
            if (opcode == Opcodes.MONITORENTER) {
              if (monitors++ == 0) {
                monitorLine = line;
              }
            } else if (opcode == Opcodes.MONITOREXIT && monitors > 0) {
              // The handler's second MONITOREXIT (after the block's own) finds the count at 0.
              monitors--;
            }
          }

          @Override
          public void visitMethodInsn(int op, String owner, String n, String d, boolean itf) {
            m.calls.add(new Call(op, owner, n, d, line, monitors > 0 ? monitorLine : 0));
            info.refs.add(owner);
            info.memberRefs.add(new MemberRef(owner, n, d, false));
            if (owner.equals(THREAD_LOCAL) || owner.equals("java/lang/InheritableThreadLocal")) {
              if ((n.equals("get") || n.equals("set") || n.equals("remove")) && m.threadLocalLine == 0) {
                m.threadLocalLine = line;
              }
            }
            boolean methodLookup = owner.equals("java/lang/Class")
                && (n.equals("getMethod") || n.equals("getDeclaredMethod"));
            boolean handleLookup = owner.equals("java/lang/invoke/MethodHandles$Lookup") && n.startsWith("find")
                && !n.endsWith("Getter") && !n.endsWith("Setter") && !n.equals("findClass")
                && !n.equals("findConstructor");
            if ((methodLookup || handleLookup) && pendingOwner != null && pendingName != null) {
              info.lookups.add(new Lookup(handleLookup, pendingOwner, pendingName));
            }
            if ((owner.equals("java/lang/reflect/Method") && n.equals("invoke"))
                || (owner.equals("java/lang/invoke/MethodHandle") && n.startsWith("invoke"))) {
              if (m.reflectiveLine == 0) {
                m.reflectiveLine = line;
              }
            }
          }

          @Override
          public void visitFieldInsn(int op, String owner, String n, String d) {
            info.refs.add(owner);
            info.memberRefs.add(new MemberRef(owner, n, d, true));
          }

          @Override
          public void visitTypeInsn(int op, String type) {
            info.refs.add(type);
          }

          @Override
          public void visitLdcInsn(Object value) {
            if (value instanceof Type && ((Type) value).getSort() == Type.OBJECT) {
              lastType = ((Type) value).getInternalName();
              info.refs.add(lastType);
            } else if (value instanceof String) {
              // getMethod(name, ...) and findVirtual(type, name, ...): the class constant comes
              // just before the name; the parameter types after it.
              pendingOwner = lastType;
              pendingName = (String) value;
            }
          }

          @Override
          public void visitInvokeDynamicInsn(String n, String d, Handle bsm, Object... args) {
            if (bsm.getOwner().equals("java/lang/invoke/LambdaMetafactory")
                && args.length > 1 && args[1] instanceof Handle) {
              Handle impl = (Handle) args[1];
              m.lambdas.add(new LambdaSite(Type.getReturnType(d).getInternalName(),
                  new MethodRef(impl.getOwner(), impl.getName(), impl.getDesc()), line));
              info.refs.add(impl.getOwner());
            }
          }
        };
      }
    }, (withCode ? 0 : ClassReader.SKIP_CODE) | ClassReader.SKIP_FRAMES);
    info.inScope = inScope;
    info.hasCode = withCode;
    return info;
  }

  private static final class ClassInfo {
    String name;
    int access;
    String superName;
    String[] interfaces;
    boolean rewritten;
    boolean inScope;
    boolean hasCode;
    final Map<String, MethodInfo> methods = new LinkedHashMap<>();
    final Set<String> refs = new HashSet<>();
    final List<Lookup> lookups = new ArrayList<>();
    final Map<String, Integer> fields = new HashMap<>();
    final List<MemberRef> memberRefs = new ArrayList<>();
    String nestHost;
    final List<String> nestMembers = new ArrayList<>();
  }

  private record MemberRef(String owner, String name, String desc, boolean field) {}

  private static final class MethodInfo {
    final MethodRef ref;
    final String name;
    final String desc;
    final int access;
    final String[] exceptions;
    boolean annotated;
    int threadLocalLine;
    int reflectiveLine;
    final List<Call> calls = new ArrayList<>();
    final List<LambdaSite> lambdas = new ArrayList<>();
    List<Edge> edges;

    MethodInfo(MethodRef ref, int access, String[] exceptions) {
      this.ref = ref;
      this.name = ref.name();
      this.desc = ref.desc();
      this.access = access;
      this.exceptions = exceptions;
    }

    String key() {
      return ref.key();
    }

    boolean isInitializer() {
      return name.equals("<init>") || name.equals("<clinit>");
    }
  }

  private record Call(int opcode, String owner, String name, String desc, int line, int monitorLine) {}

  private record LambdaSite(String iface, MethodRef impl, int line) {}

  /** A constant reflective lookup: {@code X.class.getMethod("name", ...)} or {@code lookup.findVirtual(X.class, "name", ...)}. */
  private record Lookup(boolean handle, String owner, String name) {}
}
