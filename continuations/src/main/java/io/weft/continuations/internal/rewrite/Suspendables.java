package io.weft.continuations.internal.rewrite;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.objectweb.asm.Opcodes;

/**
 * Which methods of the in-scope classes can suspend, and so are marked {@code @continuable}: a
 * fixpoint over the call graph, deciding call sites as the engine does (by the method the
 * instruction names, and that method's overrides). A method can suspend if it is marked already,
 * calls a wait or a method that can suspend, or overrides one; and a supertype's method is marked
 * with its override, since a call through the supertype is rewritten only if the supertype's
 * method is marked too. A lambda or method reference implements its interface method as a class
 * would: a call of that method can suspend when the body of some lambda made for it can, and the
 * interface method is marked; the rewrite then makes that lambda's class a rewritten one. Where a
 * type that is not rewritten declares the interface method ({@code Function.apply}), the lambda
 * counts only if {@link LambdaProxies} finds it called through that method by rewritten code
 * alone, and such calls are {@link #callsThroughOutsideTypes() marked for the engine} instead.
 */
final class Suspendables {
  private final ClassIndex index;
  private final Waits waits;
  private final Set<MethodRef> suspendable = new LinkedHashSet<>();
  private final LambdaProxies proxies;
  private final Map<MethodInfo.LambdaSite, MethodInfo> lambdas = new HashMap<>();
  /** Per lambda of an interface that is not rewritten: whether its class can be made a rewritten one. */
  private final Map<MethodInfo.LambdaSite, Boolean> rewritable = new HashMap<>();
  private final Set<MethodRef> throughOutside = new LinkedHashSet<>();
  private final Set<MethodRef> dispatched = new LinkedHashSet<>();

  Suspendables(ClassIndex index, Waits waits, LambdaProxies proxies) {
    this.index = index;
    this.waits = waits;
    this.proxies = proxies;
    for (ClassInfo c : index.inScope()) {
      for (MethodInfo m : c.methods()) {
        for (MethodInfo.LambdaSite lambda : m.lambdas) {
          lambdas.put(lambda, m);
        }
      }
    }
    fixpoint();
    planSessionMonitors();
  }

  /**
   * Which monitors become session monitors: a region (or a synchronized method) holding a call
   * the engine rewrites to suspend. The others stay plain monitors.
   */
  private void planSessionMonitors() {
    for (ClassInfo c : index.inScope()) {
      for (MethodInfo m : c.methods()) {
        if (!suspendable.contains(m.ref)) {
          continue;
        }
        Set<Integer> regions = new TreeSet<>();
        boolean any = false;
        for (CallSite call : m.calls) {
          if (isSuspendableCall(call)) {
            any = true;
            regions.addAll(call.monitors());
          }
        }
        m.sessionRegions = Set.copyOf(regions);
        m.sessionMethod = any && (m.access & Opcodes.ACC_SYNCHRONIZED) != 0;
      }
    }
  }

  /** The suspendable methods, in-scope classes only. */
  Set<MethodRef> all() {
    return suspendable;
  }

  boolean contains(MethodRef m) {
    return suspendable.contains(m);
  }

  /**
   * The interface calls (as named in the instruction) that can reach a lambda whose body can
   * suspend, where the interface method is declared by a type that is not rewritten: the engine
   * instruments a call by its callee's mark, and never one through a JDK type, so the rewrite
   * marks these call sites for it ({@link InterfaceCallSites}).
   */
  Set<MethodRef> callsThroughOutsideTypes() {
    return throughOutside;
  }

  /**
   * The virtual and interface calls (as named in the instruction) that can suspend: those the
   * engine saves and restores by calling the method again on the object that captured itself.
   */
  Set<MethodRef> dispatchedCalls() {
    return dispatched;
  }

  private void fixpoint() {
    boolean changed = true;
    while (changed) {
      changed = false;
      for (ClassInfo c : index.inScope()) {
        for (MethodInfo m : c.methods()) {
          if (suspendable.contains(m.ref) || m.isInitializer()) {
            continue;
          }
          if (m.annotated || callsSuspendable(m) || overridesSuspendable(c, m)) {
            suspendable.add(m.ref);
            changed = true;
          }
        }
      }
      for (MethodRef id : new ArrayList<>(suspendable)) {
        ClassInfo c = index.inScope(id.owner());
        if (c == null) {
          continue;
        }
        for (String sup : index.allSupertypes(c)) {
          ClassInfo t = index.inScope(sup);
          if (t != null && t.method(id) != null && suspendable.add(id.in(sup))) {
            changed = true;
          }
        }
      }
    }
  }

  private boolean callsSuspendable(MethodInfo m) {
    for (CallSite call : m.calls) {
      if (isSuspendableCall(call)) {
        return true;
      }
    }
    return false;
  }

  private boolean isSuspendableCall(CallSite call) {
    boolean can = canSuspend(call);
    if (can && (call.opcode() == Opcodes.INVOKEVIRTUAL || call.opcode() == Opcodes.INVOKEINTERFACE)) {
      dispatched.add(call.target());
    }
    return can;
  }

  private boolean canSuspend(CallSite call) {
    if (call.target().isInitializer()) {
      return false;
    }
    // A call through a type that is not rewritten must be marked for the engine whenever a lambda
    // that can suspend can be behind it, even if a class of the client's that can suspend also
    // implements the method (a Callable of its own): so the lambdas are asked first.
    if (call.opcode() == Opcodes.INVOKEINTERFACE && lambdaCanSuspend(call)) {
      MethodInfo declared = index.resolve(call.target());
      if (declared != null && index.inScope(declared.ref.owner()) != null) {
        suspendable.add(declared.ref);
      } else {
        throughOutside.add(call.target());
      }
      return true;
    }
    if (resolvesSuspendable(call.owner(), call.target(), new HashSet<>())) {
      return true;
    }
    if (call.opcode() == Opcodes.INVOKEVIRTUAL || call.opcode() == Opcodes.INVOKEINTERFACE) {
      for (String sub : index.subtypes(call.owner())) {
        if (suspendable.contains(call.target().in(sub))) {
          return true;
        }
      }
    }
    return false;
  }


  /** True if the body of {@code lambda} (of an in-scope class) can suspend. */
  boolean bodyCanSuspend(MethodInfo.LambdaSite lambda) {
    MethodInfo body = index.resolve(lambda.impl());
    return body != null && (suspendable.contains(body.ref) || body.annotated || waits.isApiWait(body.ref));
  }

  /** Does some lambda whose body can suspend implement the interface method {@code call} names? */
  private boolean lambdaCanSuspend(CallSite call) {
    for (Map.Entry<MethodInfo.LambdaSite, MethodInfo> made : lambdas.entrySet()) {
      MethodInfo.LambdaSite lambda = made.getKey();
      if (!lambda.factory().name().equals(call.name())
          || !lambda.samType().getDescriptor().equals(call.target().desc())) {
        continue;
      }
      if (!lambda.iface().equals(call.owner())) {
        ClassInfo iface = index.info(lambda.iface());
        if (iface == null || !index.allSupertypes(iface).contains(call.owner())) {
          continue;
        }
      }
      if (bodyCanSuspend(lambda) && canBeRewritten(made.getValue(), lambda)) {
        return true;
      }
    }
    return false;
  }

  /**
   * A lambda of an interface that is not rewritten passes a suspend only when every call of it
   * is a rewritten one; otherwise it is refused where it is made, and makes no call suspendable.
   */
  private boolean canBeRewritten(MethodInfo creator, MethodInfo.LambdaSite lambda) {
    if (index.inScope(lambda.iface()) != null) {
      return true;
    }
    return rewritable.computeIfAbsent(lambda, l -> proxies.refusal(creator, l) == null);
  }

  /** Does {@code owner} declare or inherit {@code m}'s signature as suspendable? */
  private boolean resolvesSuspendable(String owner, MethodRef m, Set<String> seen) {
    if (owner == null || !seen.add(owner)) {
      return false;
    }
    ClassInfo c = index.info(owner);
    if (c == null) {
      return false;
    }
    if (declaresSuspendable(c, m)) {
      return true;
    }
    if (resolvesSuspendable(c.superName, m, seen)) {
      return true;
    }
    for (String itf : c.interfaces) {
      if (resolvesSuspendable(itf, m, seen)) {
        return true;
      }
    }
    return false;
  }

  private boolean declaresSuspendable(ClassInfo c, MethodRef sig) {
    MethodInfo m = c.method(sig);
    return m != null && (m.annotated || suspendable.contains(m.ref) || waits.isApiWait(m.ref));
  }

  private boolean overridesSuspendable(ClassInfo c, MethodInfo m) {
    if ((m.access & (Opcodes.ACC_STATIC | Opcodes.ACC_PRIVATE)) != 0) {
      return false;
    }
    Set<String> seen = new HashSet<>();
    seen.add(c.name);
    if (resolvesSuspendable(c.superName, m.ref, seen)) {
      return true;
    }
    for (String itf : c.interfaces) {
      if (resolvesSuspendable(itf, m.ref, seen)) {
        return true;
      }
    }
    return false;
  }
}
