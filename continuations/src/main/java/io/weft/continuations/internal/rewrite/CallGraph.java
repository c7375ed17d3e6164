package io.weft.continuations.internal.rewrite;

import io.weft.continuations.internal.rewrite.Edge.Kind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.objectweb.asm.Opcodes;

/**
 * The edges out of each method with code, each with its {@link Kind}: what a call can reach
 * (the method it links to and, for a virtual or interface call, every known override; a lambda's
 * body; the target of a constant reflective or method-handle lookup; the overrides of JDK methods
 * in an object handed to JDK code) and whether the rewrite can make it suspend. Built per method
 * on first use.
 */
final class CallGraph {
  private final ClassIndex index;
  private final Waits waits;
  private final LambdaProxies proxies;
  private final Map<MethodRef, List<Edge>> edges = new HashMap<>();

  CallGraph(ClassIndex index, Waits waits, LambdaProxies proxies) {
    this.index = index;
    this.waits = waits;
    this.proxies = proxies;
  }

  List<Edge> edges(MethodInfo m) {
    List<Edge> done = edges.get(m.ref);
    if (done == null) {
      done = build(m);
      edges.put(m.ref, done);
    }
    return done;
  }

  private List<Edge> build(MethodInfo m) {
    List<Edge> out = new ArrayList<>();
    ClassInfo self = index.info(m.ref.owner());
    for (CallSite call : m.calls) {
      MethodRef target = call.target();
      if (target.name().equals("<clinit>")) {
        continue;
      }
      boolean ctor = target.name().equals("<init>");
      if (!ctor && waits.isApiWait(target)) {
        out.add(new Edge(call.line(), target, Kind.WAIT, null, call.monitorLine()));
        continue;
      }
      if (ctor) {
        ClassInfo made = index.codeInfo(call.owner());
        if (made != null) {
          MethodInfo init = made.method(target);
          if (init != null) {
            out.add(new Edge(call.line(), init.ref, Kind.CONSTRUCTOR, null, call.monitorLine()));
          }
          if (call.opcode() == Opcodes.INVOKESPECIAL && !(self != null && self.name.equals(call.owner()))) {
            jdkCallers(made, call, out);
          }
        }
        continue;
      }
      boolean dispatch = call.opcode() == Opcodes.INVOKEVIRTUAL || call.opcode() == Opcodes.INVOKEINTERFACE;
      if (Packages.isJdk(call.owner())) {
        jdkCall(self, call, dispatch, out);
        continue;
      }
      MethodInfo declared = index.resolve(target);
      if (declared != null && waits.isApiWait(declared.ref)) {
        out.add(new Edge(call.line(), declared.ref, Kind.WAIT, null, call.monitorLine()));
        continue;
      }
      if (Packages.isRuntime(call.owner())) {
        // Weft's own suspending operations (a session-aware lock, say) come rewritten.
        if (declared != null && declared.annotated) {
          out.add(new Edge(call.line(), declared.ref, Kind.WAIT, null, call.monitorLine()));
        }
        continue;
      }
      ClassInfo owner = index.info(call.owner());
      boolean ownerRewritable = owner != null && (owner.inScope || owner.rewritten);
      Set<MethodInfo> targets = new LinkedHashSet<>();
      if (declared != null) {
        targets.add(declared);
      }
      Set<MethodInfo> overriding = dispatch ? new HashSet<>(index.overrides(target)) : Set.of();
      targets.addAll(overriding);
      for (MethodInfo t : targets) {
        ClassInfo tc = index.info(t.ref.owner());
        Kind kind;
        if (t.annotated && tc.rewritten && !tc.inScope) {
          out.add(new Edge(call.line(), t.ref, Kind.WAIT, null, call.monitorLine()));
          continue;
        } else if (t.annotated && !tc.rewritten && !tc.inScope) {
          kind = Kind.NOT_REWRITTEN;
        } else if (!tc.inScope) {
          kind = Kind.OUTSIDE;
        } else if (!ownerRewritable) {
          kind = Kind.OUTSIDE_TYPE;
        } else {
          kind = Kind.OK;
        }
        out.add(new Edge(call.line(), t.ref, kind, kind == Kind.OUTSIDE_TYPE ? dotted(call.owner()) : null,
            call.monitorLine(), overriding.contains(t) && t != declared));
      }
    }
    for (MethodInfo.LambdaSite lambda : m.lambdas) {
      MethodInfo impl = index.resolve(lambda.impl());
      if (impl != null) {
        out.add(lambdaEdge(self, m, lambda, impl));
      }
    }
    return out;
  }

  /** True if the rewrite can make the class of the lambda made at {@code lambda} in {@code m} a rewritten one. */
  boolean rewritableLambda(MethodInfo m, MethodInfo.LambdaSite lambda) {
    ClassInfo self = index.info(m.ref.owner());
    return self != null && self.inScope && proxies.refusal(m, lambda) == null;
  }

  /**
   * The edge from where a lambda is made to its body: rewritable when the rewrite can make the
   * lambda's class a rewritten one ({@link LambdaProxies}), then judged as a direct call to the body
   * would be.
   */
  private Edge lambdaEdge(ClassInfo self, MethodInfo m, MethodInfo.LambdaSite lambda, MethodInfo impl) {
    String refusal = self != null && self.inScope ? proxies.refusal(m, lambda) : "it is made in code that is not rewritten";
    if (refusal != null) {
      return new Edge(lambda.line(), impl.ref, Kind.LAMBDA, dotted(lambda.iface()), 0, false, refusal);
    }
    ClassInfo ic = index.info(impl.ref.owner());
    Kind kind;
    if (waits.isApiWait(impl.ref) || (impl.annotated && ic.rewritten && !ic.inScope)) {
      kind = Kind.WAIT;
    } else if (impl.annotated && !ic.rewritten && !ic.inScope) {
      kind = Kind.NOT_REWRITTEN;
    } else if (!ic.inScope) {
      kind = Kind.OUTSIDE;
    } else {
      kind = Kind.OK;
    }
    return new Edge(lambda.line(), impl.ref, kind, null, 0);
  }

  /** A call through a JDK type: its overrides in user classes, and the target of a constant lookup. */
  private void jdkCall(ClassInfo self, CallSite call, boolean dispatch, List<Edge> out) {
    if (dispatch) {
      for (MethodInfo sub : index.overrides(call.target())) {
        out.add(new Edge(call.line(), sub.ref, Kind.JDK_TYPE, dotted(call.owner()) + "." + call.name(),
            call.monitorLine(), true));
      }
    }
    if (self != null && ClassScanner.isReflectiveInvoke(call.target())) {
      boolean handle = call.owner().equals("java/lang/invoke/MethodHandle");
      for (ClassInfo.Lookup lookup : self.lookups) {
        if (lookup.handle() == handle) {
          for (MethodInfo target : index.named(lookup.owner(), lookup.name())) {
            out.add(new Edge(call.line(), target.ref, handle ? Kind.HANDLE : Kind.REFLECTION,
                dotted(call.owner()) + "." + call.name(), call.monitorLine()));
          }
        }
      }
    }
  }

  /**
   * Edges for an object of {@code made} (a user class) that JDK code may call: every method of it
   * that overrides a method of a JDK supertype. {@code close()} of {@code AutoCloseable} or
   * {@code Closeable} is left out: a try-with-resources on the user's own type calls it through
   * that type, which is rewritten; a call through the JDK type is an edge of its own.
   */
  private void jdkCallers(ClassInfo made, CallSite call, List<Edge> out) {
    if (Packages.isJdk(made.name)) {
      return;
    }
    Set<String> jdkSupers = new LinkedHashSet<>();
    for (String sup : index.allSupertypes(made)) {
      if (Packages.isJdk(sup)) {
        jdkSupers.add(sup);
      }
    }
    for (String sup : jdkSupers) {
      ClassInfo t = index.info(sup);
      if (t == null) {
        continue;
      }
      for (MethodInfo jm : t.methods()) {
        if (jm.isInitializer() || (jm.access & (Opcodes.ACC_STATIC | Opcodes.ACC_PRIVATE)) != 0) {
          continue;
        }
        if (jm.ref.signature().equals("close()V")
            && (sup.equals("java/lang/AutoCloseable") || sup.equals("java/io/Closeable"))) {
          continue;
        }
        MethodInfo impl = index.resolve(jm.ref.in(made.name));
        if (impl != null && !Packages.isJdk(impl.ref.owner())) {
          out.add(new Edge(call.line(), impl.ref, Kind.JDK_CALLER, dotted(sup) + "." + jm.name, call.monitorLine()));
        }
      }
    }
  }

  static String dotted(String internalName) {
    return internalName.replace('/', '.');
  }
}
