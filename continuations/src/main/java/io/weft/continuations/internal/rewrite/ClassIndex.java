package io.weft.continuations.internal.rewrite;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import org.objectweb.asm.Opcodes;

/**
 * The classes the analysis knows, read once each: those under the rewritten packages with their
 * code, every class their code refers to (with code too, unless it is the JDK's, Weft's or a
 * shared library's), and any other class a question names, read on demand. Answers the hierarchy
 * questions (supertypes, known subtypes, which method a call links to, its overrides). After
 * construction it only grows by classes read on demand; not thread-safe.
 */
final class ClassIndex {
  private final Function<String, byte[]> classBytes;
  private final Map<String, ClassInfo> inScope = new TreeMap<>();
  private final Map<String, ClassInfo> outside = new HashMap<>();
  private final Map<String, Set<String>> subtypes = new HashMap<>();
  private final Set<String> redirecting = new HashSet<>();

  /**
   * @param classBytes the bytes of a class by internal name, null if there is none
   * @param inScopeNames internal names of the classes to analyse and rewrite
   * @param redirects applied to the calls of the in-scope classes before anything else is asked
   */
  ClassIndex(Function<String, byte[]> classBytes, Collection<String> inScopeNames, CallSiteRedirects redirects) {
    this.classBytes = classBytes;
    for (String name : inScopeNames) {
      byte[] bytes = classBytes.apply(name);
      if (bytes != null) {
        inScope.put(name, ClassScanner.read(bytes, true, true));
      }
    }
    redirect(redirects);
    loadReferencedCode();
    for (ClassInfo c : codeClasses()) {
      for (String sup : allSupertypes(c)) {
        subtypes.computeIfAbsent(sup, k -> new HashSet<>()).add(c.name);
      }
    }
  }

  /** The bytes of class {@code name} as compiled, or null. */
  byte[] bytes(String name) {
    return classBytes.apply(name);
  }

  /** The in-scope classes, by internal name. */
  Collection<ClassInfo> inScope() {
    return inScope.values();
  }

  Set<String> inScopeNames() {
    return inScope.keySet();
  }

  ClassInfo inScope(String name) {
    return inScope.get(name);
  }

  /** The in-scope classes with a call that the redirect pass changes. */
  Set<String> redirecting() {
    return redirecting;
  }

  /** The class, read on first use; null if there is no such class. */
  ClassInfo info(String name) {
    ClassInfo c = inScope.get(name);
    if (c != null) {
      return c;
    }
    if (outside.containsKey(name)) {
      return outside.get(name);
    }
    byte[] bytes = name.startsWith("[") ? null : classBytes.apply(name);
    c = bytes == null ? null : ClassScanner.read(bytes, !Packages.isJdk(name) && !Packages.isRuntime(name), false);
    outside.put(name, c);
    return c;
  }

  /** The class if it was read with its code, else null. */
  ClassInfo codeInfo(String name) {
    ClassInfo c = info(name);
    return c != null && c.hasCode ? c : null;
  }

  /** The method as declared in its owner, or null. */
  MethodInfo method(MethodRef ref) {
    ClassInfo c = info(ref.owner());
    return c == null ? null : c.method(ref);
  }

  /** Every class read with its code: the in-scope ones, then those outside. */
  List<ClassInfo> codeClasses() {
    List<ClassInfo> out = new ArrayList<>(inScope.values());
    for (ClassInfo c : outside.values()) {
      if (c != null && c.hasCode) {
        out.add(c);
      }
    }
    return out;
  }

  /** Every supertype of {@code c}, transitively, nearest first. */
  Set<String> allSupertypes(ClassInfo c) {
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

  /** The known classes with code that are subtypes of {@code name}. */
  Set<String> subtypes(String name) {
    return subtypes.getOrDefault(name, Set.of());
  }

  /** The method a call to {@code call} links to: declared in its owner or inherited; null if unknown. */
  MethodInfo resolve(MethodRef call) {
    ArrayDeque<String> todo = new ArrayDeque<>();
    Set<String> seen = new HashSet<>();
    todo.add(call.owner());
    while (!todo.isEmpty()) {
      String name = todo.poll();
      if (!seen.add(name)) {
        continue;
      }
      ClassInfo c = info(name);
      if (c == null) {
        continue;
      }
      MethodInfo m = c.method(call);
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

  /** Every known non-JDK method that overrides {@code m}. */
  List<MethodInfo> overrides(MethodRef m) {
    List<MethodInfo> out = new ArrayList<>();
    for (String sub : subtypes(m.owner())) {
      ClassInfo c = info(sub);
      MethodInfo o = c == null ? null : c.method(m);
      if (o != null && (o.access & (Opcodes.ACC_STATIC | Opcodes.ACC_PRIVATE)) == 0 && !Packages.isJdk(sub)) {
        out.add(o);
      }
    }
    return out;
  }

  /** The methods named {@code name} of {@code owner}, for a reflective lookup. */
  List<MethodInfo> named(String owner, String name) {
    List<MethodInfo> out = new ArrayList<>();
    ClassInfo c = info(owner);
    if (c != null) {
      for (MethodInfo m : c.methods()) {
        if (m.name.equals(name)) {
          out.add(m);
        }
      }
    }
    return out;
  }

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

  /**
   * Replaces each redirected call of an in-scope class by the call it becomes. Runs once every
   * in-scope class is read, so that a class of the scope is never read as one outside it.
   */
  private void redirect(CallSiteRedirects redirects) {
    if (redirects.isEmpty()) {
      return;
    }
    Function<MethodRef, MethodRef> declaring = call -> {
      MethodInfo m = resolve(call);
      return m == null ? null : m.ref;
    };
    for (ClassInfo c : inScope.values()) {
      for (MethodInfo m : c.methods()) {
        for (int i = 0; i < m.calls.size(); i++) {
          CallSite call = m.calls.get(i);
          ConstructorArgument k = redirects.findConstructor(call.opcode(), call.target());
          if (k != null) {
            m.calls.set(i, new CallSite(Opcodes.INVOKESPECIAL, k.to(), call.line(), call.monitorLine()));
            m.calls.add(i, new CallSite(Opcodes.INVOKESTATIC, k.supplier(), call.line(), call.monitorLine()));
            i++;
            c.refs.add(k.supplier().owner());
            redirecting.add(c.name);
            continue;
          }
          CallSiteRedirect r = redirects.find(call.opcode(), call.target(), declaring);
          if (r != null) {
            m.calls.set(i, new CallSite(Opcodes.INVOKESTATIC, r.to(), call.line(), call.monitorLine(), call.monitors()));
            c.refs.add(r.to().owner());
            redirecting.add(c.name);
          }
        }
      }
    }
  }
}
