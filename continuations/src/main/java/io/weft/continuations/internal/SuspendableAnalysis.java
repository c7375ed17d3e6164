package io.weft.continuations.internal;

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
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Works out which methods of the in-scope classes can suspend: a method can suspend if it calls
 * a waiting {@code Transport} operation, {@code Connector.connect}, {@code SessionTask.run}, a
 * method marked {@code @continuable} (a rewritten library transport), or any method that can
 * suspend; through supertypes and overrides both ways. A fixpoint over the call graph, by name
 * and descriptor, as the engine decides call sites.
 *
 * <p>Then it looks for what the engine can never rewrite: a suspending method reached through a
 * JDK type (an {@code InputStream.read} override under a {@code BufferedReader}), through a
 * lambda or method reference, from a constructor, or in a class outside the scope.
 */
public final class SuspendableAnalysis {
  public static final String CONTINUABLE = "Lorg/apache/commons/javaflow/api/continuable;";
  private static final String SKIP = "Lorg/apache/commons/javaflow/core/Skip;";
  private static final String TRANSPORT = "io/weft/transport/Transport";
  private static final String CONNECTOR = "io/weft/transport/Connector";
  private static final String SESSION_TASK = "io/weft/transport/SessionTask";
  private static final Set<String> TRANSPORT_WAITS = Set.of(
      "readLine", "readLineStrict", "readFully", "readBytes", "read", "write", "writeLine", "flush");

  private final Function<String, byte[]> classBytes;
  private final Map<String, ClassInfo> inScope = new TreeMap<>();
  private final Map<String, ClassInfo> outside = new HashMap<>();
  private final Set<String> suspendable = new LinkedHashSet<>();
  private final Map<String, Set<String>> subtypes = new HashMap<>();
  private final List<Problem> problems = new ArrayList<>();
  private final Map<String, List<Problem>> problemsByClass = new HashMap<>();
  private final List<String> warnings = new ArrayList<>();

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
    for (ClassInfo c : inScope.values()) {
      for (String sup : allSupertypes(c)) {
        subtypes.computeIfAbsent(sup, k -> new HashSet<>()).add(c.name);
      }
    }
    fixpoint();
    findProblems();
  }

  /** Method keys (name + descriptor) to mark {@code @continuable}, by internal class name. */
  public Map<String, Set<String>> marks() {
    Map<String, Set<String>> marks = new HashMap<>();
    for (String entry : suspendable) {
      int dot = entry.indexOf('.');
      String owner = entry.substring(0, dot);
      if (inScope.containsKey(owner)) {
        marks.computeIfAbsent(owner, k -> new HashSet<>()).add(entry.substring(dot + 1));
      }
    }
    for (String api : List.of(TRANSPORT, CONNECTOR, SESSION_TASK)) {
      ClassInfo c = info(api);
      if (c != null) {
        for (MethodInfo m : c.methods.values()) {
          if (isApiWait(api, m.name)) {
            marks.computeIfAbsent(api, k -> new HashSet<>()).add(m.key());
          }
        }
      }
    }
    return marks;
  }

  /** The methods of {@code className} named like Transport's waiting operations. */
  public Set<String> transportWaits(String className) {
    Set<String> keys = new HashSet<>();
    ClassInfo c = info(className);
    if (c != null) {
      for (MethodInfo m : c.methods.values()) {
        if (TRANSPORT_WAITS.contains(m.name)) {
          keys.add(m.key());
        }
      }
    }
    return keys;
  }

  public List<String> suspendableMethods() {
    List<String> out = new ArrayList<>();
    for (String entry : new TreeSet<>(suspendable)) {
      int dot = entry.indexOf('.');
      out.add(entry.substring(0, dot).replace('/', '.') + "." + entry.substring(dot + 1));
    }
    return out;
  }

  public List<Problem> problems() {
    return problems;
  }

  public List<String> warnings() {
    return warnings;
  }

  public Set<String> classes() {
    return inScope.keySet();
  }

  /** The problems in classes that {@code root} (internal name) can reach, directly or not. */
  public List<Problem> problemsReachableFrom(String root) {
    List<Problem> found = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    ArrayDeque<String> todo = new ArrayDeque<>();
    todo.add(root);
    while (!todo.isEmpty()) {
      String name = todo.poll();
      if (!seen.add(name)) {
        continue;
      }
      found.addAll(problemsByClass.getOrDefault(name, List.of()));
      ClassInfo c = inScope.get(name);
      if (c != null) {
        todo.addAll(c.refs);
      }
    }
    return found;
  }

  // ---- the fixpoint

  private static boolean isApiWait(String owner, String method) {
    switch (owner) {
      case TRANSPORT:
        return TRANSPORT_WAITS.contains(method);
      case CONNECTOR:
        return method.equals("connect");
      case SESSION_TASK:
        return method.equals("run");
      default:
        return false;
    }
  }

  private static boolean isJdk(String name) {
    return name.startsWith("java/") || name.startsWith("javax/") || name.startsWith("jdk/")
        || name.startsWith("sun/") || name.startsWith("com/sun/");
  }

  private void fixpoint() {
    boolean changed = true;
    while (changed) {
      changed = false;
      for (ClassInfo c : inScope.values()) {
        for (MethodInfo m : c.methods.values()) {
          String id = c.name + "." + m.key();
          if (suspendable.contains(id) || m.isInitializer()) {
            continue;
          }
          if (m.annotated || callsSuspendable(m) != null || overridesSuspendable(c, m)) {
            suspendable.add(id);
            changed = true;
          }
        }
      }
      // A call through a supertype is rewritten only if the supertype's method is marked too.
      for (String id : new ArrayList<>(suspendable)) {
        int dot = id.indexOf('.');
        ClassInfo c = inScope.get(id.substring(0, dot));
        String key = id.substring(dot + 1);
        if (c == null) {
          continue;
        }
        for (String sup : allSupertypes(c)) {
          ClassInfo t = inScope.get(sup);
          if (t != null && t.methods.containsKey(key) && suspendable.add(sup + "." + key)) {
            changed = true;
          }
        }
      }
    }
  }

  /** The first call in {@code m} that can suspend, or null. */
  private Call callsSuspendable(MethodInfo m) {
    for (Call call : m.calls) {
      if (isSuspendableCall(call)) {
        return call;
      }
    }
    return null;
  }

  private boolean isSuspendableCall(Call call) {
    if (call.name.equals("<init>") || call.name.equals("<clinit>")) {
      return false;
    }
    String key = call.name + call.desc;
    if (resolvesSuspendable(call.owner, key, new HashSet<>())) {
      return true;
    }
    return (call.opcode == Opcodes.INVOKEVIRTUAL || call.opcode == Opcodes.INVOKEINTERFACE)
        && overriddenSuspendable(call.owner, key) != null;
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
    return m != null && (m.annotated || suspendable.contains(c.name + "." + key) || isApiWait(c.name, m.name));
  }

  /** An in-scope override of {@code owner.key} that can suspend, or null. */
  private String overriddenSuspendable(String owner, String key) {
    for (String sub : subtypes.getOrDefault(owner, Set.of())) {
      if (suspendable.contains(sub + "." + key)) {
        return sub;
      }
    }
    return null;
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

  // ---- what cannot be rewritten

  private void findProblems() {
    for (ClassInfo c : inScope.values()) {
      for (MethodInfo m : c.methods.values()) {
        String id = c.name + "." + m.key();
        if (suspendable.contains(id)) {
          for (String sup : allSupertypes(c)) {
            ClassInfo t = info(sup);
            if (t == null || inScope.containsKey(sup) || !t.methods.containsKey(m.key())) {
              continue;
            }
            if (!declaresSuspendable(t, m.key())) {
              problem(c, m, "can suspend, but it overrides " + dotted(sup) + "." + m.name
                  + ", and calls through " + dotted(sup) + " (by JDK code such as a BufferedReader"
                  + " over an InputStream, or by any caller holding that type) are never rewritten."
                  + " Call it through your own type, or call the Transport directly");
              break;
            }
          }
        }
        if (m.isInitializer()) {
          Call call = callsSuspendable(m);
          if (call != null) {
            problem(c, m, "a constructor or static initializer cannot suspend, but it calls "
                + dotted(call.owner) + "." + call.name + lineOf(call.line)
                + ". Move the call into an ordinary method");
          }
        }
        for (Call call : m.calls) {
          if (isJdk(call.owner) && !call.name.equals("<init>")
              && (call.opcode == Opcodes.INVOKEVIRTUAL || call.opcode == Opcodes.INVOKEINTERFACE)) {
            String sub = overriddenSuspendable(call.owner, call.name + call.desc);
            if (sub != null) {
              problem(c, m, "calls " + dotted(call.owner) + "." + call.name + lineOf(call.line)
                  + ", which may run " + dotted(sub) + "." + call.name
                  + ", which can suspend; a call through a JDK type is never rewritten");
            }
          } else if (!isJdk(call.owner) && !inScope.containsKey(call.owner)) {
            checkOutsideCall(c, m, call);
          }
          if (isReflective(call)) {
            warnings.add(dotted(c.name) + "." + m.name + lineOf(call.line) + " calls "
                + dotted(call.owner) + "." + call.name + ": a suspend through reflection or a"
                + " method handle fails at run time (NotInstrumentedError)");
          }
        }
        for (Lambda lambda : m.lambdas) {
          String key = lambda.implName + lambda.implDesc;
          if (resolvesSuspendable(lambda.implOwner, key, new HashSet<>())
              || suspendable.contains(lambda.implOwner + "." + key)) {
            problem(c, m, "creates a lambda or method reference" + lineOf(lambda.line) + " for "
                + dotted(lambda.iface) + " whose body can suspend; the class the JDK makes for a"
                + " lambda at run time cannot be rewritten. Use a named class that implements "
                + dotted(lambda.iface) + (isJdk(lambda.iface) ? " and is called through your own"
                + " type, not through " + dotted(lambda.iface) : "") + ", or a plain loop");
          }
        }
      }
    }
  }

  /** A call from in-scope code into a class outside the scope (and outside the JDK). */
  private void checkOutsideCall(ClassInfo c, MethodInfo m, Call call) {
    ClassInfo target = info(call.owner);
    if (target == null || call.name.equals("<init>")) {
      return;
    }
    String key = call.name + call.desc;
    MethodInfo callee = target.methods.get(key);
    if (callee == null) {
      return;
    }
    if (callee.annotated && !target.rewritten) {
      problem(c, m, "calls " + dotted(target.name) + "." + call.name + lineOf(call.line)
          + ", which is marked @continuable but its class was not rewritten: run the JavaFlow"
          + " build step (net.tascalate.javaflow.tools.maven, goal javaflow-enhance) over it");
      return;
    }
    if (declaresSuspendable(target, key) || callee.calls.isEmpty()) {
      return;
    }
    Call inner = callsSuspendable(callee);
    if (inner != null) {
      problem(c, m, "calls " + dotted(target.name) + "." + call.name + lineOf(call.line)
          + ", which can suspend (it calls " + dotted(inner.owner) + "." + inner.name + ") but is"
          + " outside the instrumented packages, so it is not rewritten. Add its package to the"
          + " instrumented packages");
    }
  }

  private static boolean isReflective(Call call) {
    return (call.owner.equals("java/lang/reflect/Method") && call.name.equals("invoke"))
        || (call.owner.equals("java/lang/invoke/MethodHandle") && call.name.startsWith("invoke"));
  }

  private void problem(ClassInfo c, MethodInfo m, String message) {
    Problem p = new Problem(dotted(c.name), m.name, m.desc, message);
    problems.add(p);
    problemsByClass.computeIfAbsent(c.name, k -> new ArrayList<>()).add(p);
  }

  private static String lineOf(int line) {
    return line > 0 ? " (line " + line + ")" : "";
  }

  private static String dotted(String internalName) {
    return internalName.replace('/', '.');
  }

  // ---- class data

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
    c = bytes == null ? null : parse(bytes, !isJdk(name), false);
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
      public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] ex) {
        MethodInfo m = new MethodInfo(name, desc, access);
        info.methods.put(m.key(), m);
        return new MethodVisitor(Opcodes.ASM9) {
          private int line;

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
          public void visitMethodInsn(int op, String owner, String n, String d, boolean itf) {
            m.calls.add(new Call(op, owner, n, d, line));
            info.refs.add(owner);
          }

          @Override
          public void visitFieldInsn(int op, String owner, String n, String d) {
            info.refs.add(owner);
          }

          @Override
          public void visitTypeInsn(int op, String type) {
            info.refs.add(type);
          }

          @Override
          public void visitLdcInsn(Object value) {
            if (value instanceof Type && ((Type) value).getSort() == Type.OBJECT) {
              info.refs.add(((Type) value).getInternalName());
            }
          }

          @Override
          public void visitInvokeDynamicInsn(String n, String d, Handle bsm, Object... args) {
            if (bsm.getOwner().equals("java/lang/invoke/LambdaMetafactory")
                && args.length > 1 && args[1] instanceof Handle) {
              Handle impl = (Handle) args[1];
              m.lambdas.add(new Lambda(Type.getReturnType(d).getInternalName(),
                  impl.getOwner(), impl.getName(), impl.getDesc(), line));
              info.refs.add(impl.getOwner());
            }
          }
        };
      }
    }, (withCode ? 0 : ClassReader.SKIP_CODE) | ClassReader.SKIP_FRAMES);
    info.inScope = inScope;
    return info;
  }

  private static final class ClassInfo {
    String name;
    String superName;
    String[] interfaces;
    boolean rewritten;
    boolean inScope;
    final Map<String, MethodInfo> methods = new LinkedHashMap<>();
    final Set<String> refs = new HashSet<>();
  }

  private static final class MethodInfo {
    final String name;
    final String desc;
    final int access;
    boolean annotated;
    final List<Call> calls = new ArrayList<>();
    final List<Lambda> lambdas = new ArrayList<>();

    MethodInfo(String name, String desc, int access) {
      this.name = name;
      this.desc = desc;
      this.access = access;
    }

    String key() {
      return name + desc;
    }

    boolean isInitializer() {
      return name.equals("<init>") || name.equals("<clinit>");
    }
  }

  private record Call(int opcode, String owner, String name, String desc, int line) {}

  private record Lambda(String iface, String implOwner, String implName, String implDesc, int line) {}
}
