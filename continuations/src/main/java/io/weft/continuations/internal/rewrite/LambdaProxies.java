package io.weft.continuations.internal.rewrite;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.InvokeDynamicInsnNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.SourceInterpreter;
import org.objectweb.asm.tree.analysis.SourceValue;

/**
 * Whether the rewrite can give a lambda or method reference whose body can suspend a class that
 * passes the suspend through, and if not, why.
 *
 * <p>The class the JDK makes for a lambda is never rewritten, and no frame that is not rewritten
 * passes a suspend: the engine restores a call's receiver from what the callee captured, and the
 * JDK's class captures nothing. So the rewrite points such a lambda's {@code invokedynamic} at
 * {@code SuspendingLambdas}, which makes the same class rewritten, as a nestmate of the lambda's
 * class. That is possible when:
 *
 * <ul>
 *   <li>the site is a plain {@code LambdaMetafactory.metafactory} one (no serializable lambda, no
 *       marker interfaces or bridges);
 *   <li>the body is a method called directly: not a constructor, not a {@code super::} reference,
 *       not a protected method of another package's class (the JDK calls those through a method
 *       handle);
 *   <li>no argument or result needs a primitive widening;
 *   <li>where the interface method is declared by a type that is not rewritten (a JDK one:
 *       {@code Function}, {@code Supplier}, {@code Runnable}, {@code Callable}), the lambda is only
 *       ever called through that method by rewritten code, which the rewrite marks for the engine
 *       ({@link InterfaceCallSites}). Followed from where it is made, through locals, captures and
 *       the rewritten methods it is passed to; the refusal says where it is handed to code that is
 *       not rewritten ({@code List.sort}, a stream, {@code Function.andThen}) or where the analysis
 *       loses it (a field, a return).
 * </ul>
 *
 * One instance per analysis; not thread-safe.
 */
final class LambdaProxies {
  private static final String LAMBDA_FACTORY = "java/lang/invoke/LambdaMetafactory";
  private static final String CONCAT_FACTORY = "java/lang/invoke/StringConcatFactory";

  private final ClassIndex index;
  private final Map<String, ClassNode> nodes = new HashMap<>();
  private final Map<MethodRef, Flow> flows = new HashMap<>();

  LambdaProxies(ClassIndex index) {
    this.index = index;
  }

  /**
   * Null if the rewrite can make the class of the lambda made at {@code site} in {@code creator}
   * (an in-scope method) a rewritten one; otherwise why not, as a clause ("it is handed to ...").
   */
  String refusal(MethodInfo creator, MethodInfo.LambdaSite site) {
    Handle impl = site.implHandle();
    int tag = impl.getTag();
    if (tag == Opcodes.H_NEWINVOKESPECIAL) {
      return "its body is a constructor, which never suspends";
    }
    MethodInfo body = index.method(MethodRef.of(impl.getOwner(), impl.getName(), impl.getDesc()));
    boolean privateOwn = impl.getOwner().equals(creator.ref.owner()) && body != null
        && (body.access & Opcodes.ACC_PRIVATE) != 0;
    if (tag == Opcodes.H_INVOKESPECIAL && !privateOwn) {
      return "the JDK calls its body through a method handle (a super:: reference), not directly";
    }
    if (body != null && (body.access & Opcodes.ACC_PROTECTED) != 0
        && !TaskWalk.packageOf(impl.getOwner()).equals(TaskWalk.packageOf(creator.ref.owner()))) {
      return "the JDK calls its body, a protected method of another package, through a method handle";
    }
    if (!site.plain()) {
      return "it is serializable or has marker interfaces (made by LambdaMetafactory.altMetafactory)";
    }
    boolean instance = tag != Opcodes.H_INVOKESTATIC;
    Type[] captured = Type.getArgumentTypes(site.factory().desc());
    List<Type> bodyParams = new ArrayList<>();
    if (instance) {
      bodyParams.add(Type.getObjectType(impl.getOwner()));
    }
    bodyParams.addAll(List.of(Type.getArgumentTypes(impl.getDesc())));
    Type[] sam = site.samType().getArgumentTypes();
    for (int k = 0; k < sam.length && captured.length + k < bodyParams.size(); k++) {
      if (widens(sam[k], bodyParams.get(captured.length + k))) {
        return "an argument needs a primitive widening (" + sam[k].getClassName() + " to "
            + bodyParams.get(captured.length + k).getClassName() + ")";
      }
    }
    Type samReturn = site.samType().getReturnType();
    if (samReturn.getSort() != Type.VOID && widens(Type.getReturnType(impl.getDesc()), samReturn)) {
      return "its result needs a primitive widening";
    }
    if (!declaredOutside(site)) {
      return null;
    }
    String samName = site.factory().name();
    String samDesc = site.samType().getDescriptor();
    return escape(creator.ref, site, samName, samDesc, new HashSet<>());
  }

  private static boolean widens(Type from, Type to) {
    return !isReference(from) && !isReference(to) && from.getSort() != Type.VOID && to.getSort() != Type.VOID
        && !from.equals(to);
  }

  /** An {@code invokedynamic} that makes a lambda, counted as {@link MethodInfo.LambdaSite#ordinal()} counts. */
  static boolean isLambdaSite(InvokeDynamicInsnNode indy) {
    return isLambdaSite(indy.bsm, indy.bsmArgs);
  }

  static boolean isLambdaSite(Handle bsm, Object[] args) {
    return bsm.getOwner().equals(LAMBDA_FACTORY) && args.length > 2 && args[1] instanceof Handle;
  }

  private static boolean isReference(Type t) {
    return t.getSort() == Type.OBJECT || t.getSort() == Type.ARRAY;
  }

  /** True if a type that is not rewritten (the JDK's, or outside the packages) declares the interface method. */
  private boolean declaredOutside(MethodInfo.LambdaSite site) {
    ClassInfo iface = index.info(site.iface());
    if (iface == null || !iface.inScope) {
      return true;
    }
    MethodRef sam = MethodRef.of(site.iface(), site.factory().name(), site.samType().getDescriptor());
    for (String sup : index.allSupertypes(iface)) {
      ClassInfo t = index.info(sup);
      if (t != null && !t.inScope && t.method(sam.in(sup)) != null) {
        return true;
      }
    }
    return false;
  }

  /**
   * Where the value made by the {@code site}'s {@code invokedynamic} in {@code method} (or, with
   * {@code param} >= 0, the value of that parameter's local) goes other than into a call of the
   * interface method, as a clause; null if nowhere.
   */
  private String escape(MethodRef method, MethodInfo.LambdaSite site, String samName, String samDesc,
      Set<String> seen) {
    Flow flow = flow(method);
    if (flow == null) {
      return "the analysis cannot follow it in " + TaskWalk.simple(method.owner()) + "." + method.name();
    }
    AbstractInsnNode source = flow.nthLambda(site.ordinal());
    return source == null ? "the analysis cannot find where it is made"
        : escapeFrom(flow, source, samName, samDesc, seen);
  }

  private String escapeFrom(Flow flow, AbstractInsnNode source, String samName, String samDesc,
      Set<String> seen) {
    Set<AbstractInsnNode> tainted = flow.taint(source);
    for (Map.Entry<AbstractInsnNode, List<SourceValue>> use : flow.consumed.entrySet()) {
      AbstractInsnNode insn = use.getKey();
      if (Flow.isCopy(insn)) {
        continue;
      }
      List<SourceValue> values = use.getValue();
      for (int i = 0; i < values.size(); i++) {
        if (!Flow.any(values.get(i), tainted)) {
          continue;
        }
        String why = judge(flow, insn, i, samName, samDesc, seen);
        if (why != null) {
          return why;
        }
      }
    }
    return null;
  }

  /** Null if the use of the lambda as value {@code i} of {@code insn} keeps it in rewritten code. */
  private String judge(Flow flow, AbstractInsnNode insn, int i, String samName, String samDesc, Set<String> seen) {
    String at = " (line " + flow.line(insn) + " of " + TaskWalk.simple(flow.method.owner()) + "."
        + flow.method.name() + ")";
    switch (insn.getOpcode()) {
      case Opcodes.IFNULL:
      case Opcodes.IFNONNULL:
      case Opcodes.IF_ACMPEQ:
      case Opcodes.IF_ACMPNE:
      case Opcodes.INSTANCEOF:
      case Opcodes.MONITORENTER:
      case Opcodes.MONITOREXIT:
        return null;
      case Opcodes.ARETURN:
        return "it is returned" + at + ", where the analysis does not follow it";
      case Opcodes.PUTFIELD:
      case Opcodes.PUTSTATIC:
      case Opcodes.AASTORE:
        return "it is stored in a field or an array" + at + ", where the analysis does not follow it";
      case Opcodes.INVOKEDYNAMIC:
        return judgeCapture((InvokeDynamicInsnNode) insn, i, samName, samDesc, seen, at);
      case Opcodes.INVOKEVIRTUAL:
      case Opcodes.INVOKEINTERFACE:
      case Opcodes.INVOKESPECIAL:
      case Opcodes.INVOKESTATIC:
        return judgeCall(flow, (MethodInsnNode) insn, i, samName, samDesc, seen, at);
      default:
        return "it is used" + at + " where the analysis does not follow it";
    }
  }

  /** A lambda captured by another: followed into the other's body, where it is a parameter. */
  private String judgeCapture(InvokeDynamicInsnNode indy, int i, String samName, String samDesc, Set<String> seen,
      String at) {
    if (indy.bsm.getOwner().equals(CONCAT_FACTORY)) {
      return null;
    }
    String lost = "it is captured by another lambda" + at + ", where the analysis does not follow it";
    if (!indy.bsm.getOwner().equals(LAMBDA_FACTORY) || indy.bsmArgs.length < 2
        || !(indy.bsmArgs[1] instanceof Handle)) {
      return lost;
    }
    Handle impl = (Handle) indy.bsmArgs[1];
    MethodInfo body = index.method(MethodRef.of(impl.getOwner(), impl.getName(), impl.getDesc()));
    ClassInfo owner = index.info(impl.getOwner());
    int arg = impl.getTag() == Opcodes.H_INVOKESTATIC ? i : i - 1;
    if (body == null || owner == null || !owner.inScope || arg < 0
        || (body.access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) {
      return lost;
    }
    if (!seen.add(body.ref + "#" + arg)) {
      return null;
    }
    Flow callee = flow(body.ref);
    return callee == null ? lost : escapeFrom(callee, callee.parameter(arg), samName, samDesc, seen);
  }

  private String judgeCall(Flow flow, MethodInsnNode call, int i, String samName, String samDesc, Set<String> seen,
      String at) {
    boolean hasReceiver = call.getOpcode() != Opcodes.INVOKESTATIC;
    String called = CallGraph.dotted(call.owner) + "." + call.name;
    if (hasReceiver && i == 0) {
      if (call.name.equals(samName) && call.desc.equals(samDesc)) {
        return null;
      }
      boolean objectMethod = (call.name.equals("equals") && call.desc.equals("(Ljava/lang/Object;)Z"))
          || (call.name.equals("hashCode") && call.desc.equals("()I"))
          || (call.name.equals("toString") && call.desc.equals("()Ljava/lang/String;"));
      return objectMethod ? null : "it is handed to " + called + at + ", which is not rewritten";
    }
    ClassInfo owner = index.info(call.owner);
    if (owner == null || !owner.inScope || call.name.equals("<init>")) {
      return "it is handed to " + called + at + ", which is not rewritten";
    }
    int arg = hasReceiver ? i - 1 : i;
    List<MethodInfo> targets = new ArrayList<>();
    MethodInfo declared = index.resolve(MethodRef.of(call.owner, call.name, call.desc));
    if (declared != null) {
      targets.add(declared);
    }
    if (call.getOpcode() == Opcodes.INVOKEVIRTUAL || call.getOpcode() == Opcodes.INVOKEINTERFACE) {
      targets.addAll(index.overrides(MethodRef.of(call.owner, call.name, call.desc)));
    }
    if (targets.isEmpty()) {
      return "it is handed to " + called + at + ", which the analysis cannot find";
    }
    for (MethodInfo target : targets) {
      ClassInfo tc = index.info(target.ref.owner());
      if (tc == null || !tc.inScope) {
        return "it is handed to " + CallGraph.dotted(target.ref.owner()) + "." + target.name + at
            + ", which is not rewritten";
      }
      if ((target.access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) {
        continue;
      }
      if (!seen.add(target.ref + "#" + arg)) {
        continue;
      }
      Flow callee = flow(target.ref);
      if (callee == null) {
        return "the analysis cannot follow it into " + TaskWalk.simple(target.ref.owner()) + "." + target.name;
      }
      String why = escapeFrom(callee, callee.parameter(arg), samName, samDesc, seen);
      if (why != null) {
        return why;
      }
    }
    return null;
  }

  private Flow flow(MethodRef method) {
    if (flows.containsKey(method)) {
      return flows.get(method);
    }
    Flow flow = null;
    ClassNode node = node(method.owner());
    if (node != null) {
      for (MethodNode mn : node.methods) {
        if (mn.name.equals(method.name()) && mn.desc.equals(method.desc())) {
          flow = Flow.of(method, mn);
        }
      }
    }
    flows.put(method, flow);
    return flow;
  }

  private ClassNode node(String owner) {
    if (!nodes.containsKey(owner)) {
      byte[] bytes = index.bytes(owner);
      ClassNode node = null;
      if (bytes != null) {
        node = new ClassNode();
        new ClassReader(bytes).accept(node, ClassReader.SKIP_FRAMES);
      }
      nodes.put(owner, node);
    }
    return nodes.get(owner);
  }

  /** One method's data flow: which values each instruction consumes, and where each came from. */
  private static final class Flow {
    final MethodRef method;
    final MethodNode node;
    /** Per instruction, the values it consumes (receiver and arguments in order for a call). */
    final Map<AbstractInsnNode, List<SourceValue>> consumed = new HashMap<>();
    /** Per parameter (by argument position, receiver excluded), a stand-in instruction as its source. */
    final List<AbstractInsnNode> params = new ArrayList<>();

    private Flow(MethodRef method, MethodNode node) {
      this.method = method;
      this.node = node;
    }

    static Flow of(MethodRef method, MethodNode node) {
      Flow flow = new Flow(method, node);
      boolean isStatic = (node.access & Opcodes.ACC_STATIC) != 0;
      Map<Integer, AbstractInsnNode> byLocal = new HashMap<>();
      int local = isStatic ? 0 : 1;
      for (Type t : Type.getArgumentTypes(node.desc)) {
        AbstractInsnNode stand = new InsnNode(Opcodes.NOP);
        flow.params.add(stand);
        byLocal.put(local, stand);
        local += t.getSize();
      }
      SourceInterpreter recorder = new SourceInterpreter(Opcodes.ASM9) {
        @Override
        public SourceValue newParameterValue(boolean isInstanceMethod, int index, Type type) {
          AbstractInsnNode stand = byLocal.get(index);
          return stand == null ? super.newParameterValue(isInstanceMethod, index, type)
              : new SourceValue(type.getSize(), stand);
        }

        @Override
        public SourceValue copyOperation(AbstractInsnNode insn, SourceValue value) {
          flow.consumed.put(insn, List.of(value));
          return super.copyOperation(insn, value);
        }

        @Override
        public SourceValue unaryOperation(AbstractInsnNode insn, SourceValue value) {
          flow.consumed.put(insn, List.of(value));
          return super.unaryOperation(insn, value);
        }

        @Override
        public SourceValue binaryOperation(AbstractInsnNode insn, SourceValue v1, SourceValue v2) {
          flow.consumed.put(insn, List.of(v1, v2));
          return super.binaryOperation(insn, v1, v2);
        }

        @Override
        public SourceValue ternaryOperation(AbstractInsnNode insn, SourceValue v1, SourceValue v2, SourceValue v3) {
          flow.consumed.put(insn, List.of(v1, v2, v3));
          return super.ternaryOperation(insn, v1, v2, v3);
        }

        @Override
        public SourceValue naryOperation(AbstractInsnNode insn, List<? extends SourceValue> values) {
          flow.consumed.put(insn, List.copyOf(values));
          return super.naryOperation(insn, values);
        }
      };
      try {
        new Analyzer<>(recorder).analyze(method.owner(), node);
      } catch (AnalyzerException e) {
        return null;
      }
      return flow;
    }

    /** The stand-in source of argument {@code arg}. */
    AbstractInsnNode parameter(int arg) {
      return params.get(arg);
    }

    /** The {@code n}-th lambda-making {@code invokedynamic} of the method, or null. */
    AbstractInsnNode nthLambda(int n) {
      int seen = 0;
      for (AbstractInsnNode insn : node.instructions) {
        if (insn instanceof InvokeDynamicInsnNode
            && isLambdaSite((InvokeDynamicInsnNode) insn) && seen++ == n) {
          return insn;
        }
      }
      return null;
    }

    /** {@code source} and every copy of its value (locals, duplicates, casts). */
    Set<AbstractInsnNode> taint(AbstractInsnNode source) {
      Set<AbstractInsnNode> tainted = new HashSet<>();
      tainted.add(source);
      boolean grew = true;
      while (grew) {
        grew = false;
        for (Map.Entry<AbstractInsnNode, List<SourceValue>> e : consumed.entrySet()) {
          if (isCopy(e.getKey()) && !tainted.contains(e.getKey())) {
            for (SourceValue v : e.getValue()) {
              if (any(v, tainted)) {
                tainted.add(e.getKey());
                grew = true;
                break;
              }
            }
          }
        }
      }
      return tainted;
    }

    /** Instructions whose result is their operand: the lambda goes on through them. */
    static boolean isCopy(AbstractInsnNode insn) {
      int op = insn.getOpcode();
      return op == Opcodes.ALOAD || op == Opcodes.ASTORE || op == Opcodes.CHECKCAST
          || (op >= Opcodes.DUP && op <= Opcodes.SWAP);
    }

    static boolean any(SourceValue v, Set<AbstractInsnNode> sources) {
      for (AbstractInsnNode s : v.insns) {
        if (sources.contains(s)) {
          return true;
        }
      }
      return false;
    }

    int line(AbstractInsnNode insn) {
      for (AbstractInsnNode at = insn; at != null; at = at.getPrevious()) {
        if (at instanceof LineNumberNode) {
          return ((LineNumberNode) at).line;
        }
      }
      return 0;
    }
  }
}
