package io.weft.continuations.internal.rewrite;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Set;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.TypeReference;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.IincInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LocalVariableAnnotationNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.VarInsnNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.Frame;
import org.objectweb.asm.tree.analysis.SourceInterpreter;
import org.objectweb.asm.tree.analysis.SourceValue;

/**
 * The rewrite's part for the virtual and interface calls that can suspend, in one method the
 * rewrite marks: each gets its receiver (and arguments) stored in fresh locals and loaded again
 * just before the call, so that the receiver is in a local that {@link ResumeChecks} compares, where
 * the frame captures itself after the call, with the object the engine will call again at the resume
 * (where that check cannot be made at the capture, at the resume, the engine saving the local). The
 * arguments' locals are cleared once the arguments are loaded again, and the receiver's after the
 * call, so that a capture through the call saves one local more and later captures none. A
 * receiver that already is in such a local, {@code this} or a parameter the method never assigns,
 * gets no copy: the call loads it from there again, and the engine restores that local with the
 * frame anyway, to the value it had at the call, since nothing in the method stores to it.
 *
 * <p>Calls through an interface that is not rewritten ({@code Function.apply}, {@code Supplier.get},
 * {@code Runnable.run}, {@code Callable.call}) that can reach a lambda whose body can suspend are
 * also marked for the engine. JavaFlow decides a call site by its callee's mark and never
 * instruments a call whose owner is a {@code java.*} type. It does instrument, whatever the owner, a
 * virtual or interface call whose receiver is loaded from a local variable carrying its
 * {@code @ccs} ("continuable call site") annotation; it finds that receiver by walking back from the
 * call over the instructions that push its arguments. So the receiver's local of such a call is
 * annotated {@code @ccs} over the few instructions that load it and call, and the result is stored
 * and loaded again, so that no other call's walk back ends on the annotated load. The engine then
 * saves and restores the call like any other; the lambda's class is one the rewrite made rewritten
 * ({@code SuspendingLambdas}), and any other implementation is called as before (nothing is
 * captured through it).
 */
final class InterfaceCallSites {
  /** JavaFlow's {@code @ccs}, meta-annotated as a continuable annotation. */
  static final String CCS = "Lorg/apache/commons/javaflow/api/ccs;";

  private InterfaceCallSites() {}

  /**
   * {@code next} behind a pass that prepares the calls to {@code checked} and {@code marked} (as
   * named in the instruction) in the method being visited, marking those to {@code marked} for the
   * engine; {@code next} itself when there are none.
   */
  static MethodVisitor wrap(MethodVisitor next, int access, String name, String desc, String signature,
      String[] exceptions, Set<MethodRef> checked, Set<MethodRef> marked) {
    if ((checked.isEmpty() && marked.isEmpty()) || (access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) {
      return next;
    }
    return new MethodNode(Opcodes.ASM9, access, name, desc, signature, exceptions) {
      @Override
      public void visitEnd() {
        prepare(this, checked, marked);
        accept(next);
      }
    };
  }

  /** Prepares the calls to {@code checked} and {@code marked} in {@code method}; true if there were any. */
  static boolean prepare(MethodNode method, Set<MethodRef> checked, Set<MethodRef> marked) {
    List<MethodInsnNode> calls = new ArrayList<>();
    int widest = 0;
    for (AbstractInsnNode insn : method.instructions) {
      if (insn.getOpcode() == Opcodes.INVOKEINTERFACE || insn.getOpcode() == Opcodes.INVOKEVIRTUAL) {
        MethodInsnNode call = (MethodInsnNode) insn;
        MethodRef target = MethodRef.of(call.owner, call.name, call.desc);
        if (checked.contains(target) || marked.contains(target)) {
          calls.add(call);
          widest = Math.max(widest, Type.getArgumentTypes(call.desc).length);
        }
      }
    }
    if (calls.isEmpty()) {
      return false;
    }
    // JavaFlow takes a local numbered up to the call's argument count for a parameter, whose
    // annotations it reads elsewhere: the receiver's local is numbered above both.
    int receiver = Math.max(method.maxLocals, widest + 1);
    int top = receiver + 1;
    int[] own = ownReceivers(method, calls, checked, marked);
    for (int i = 0; i < calls.size(); i++) {
      MethodInsnNode call = calls.get(i);
      boolean ccs = marked.contains(MethodRef.of(call.owner, call.name, call.desc));
      top = Math.max(top, spill(method, call, receiver, ccs, own[i]));
    }
    method.maxLocals = Math.max(method.maxLocals, top);
    // The null that clears the receiver's local goes on top of the call's result.
    method.maxStack += 1;
    return true;
  }

  /**
   * For each call, the local its receiver is loaded from, if that is {@code this} or a parameter
   * the method never stores to and the call is only checked (not marked {@code @ccs}, whose
   * receiver the engine must find in a local of its own); -1 for every other call, or for all of
   * them if the method's code cannot be analysed.
   */
  private static int[] ownReceivers(MethodNode method, List<MethodInsnNode> calls, Set<MethodRef> checked,
      Set<MethodRef> marked) {
    int[] own = new int[calls.size()];
    Arrays.fill(own, -1);
    if (method.name.equals("<init>")) {
      return own;
    }
    int params = (method.access & Opcodes.ACC_STATIC) != 0 ? 0 : 1;
    for (Type arg : Type.getArgumentTypes(method.desc)) {
      params += arg.getSize();
    }
    BitSet stored = new BitSet();
    for (AbstractInsnNode insn : method.instructions) {
      if (insn instanceof VarInsnNode && insn.getOpcode() >= Opcodes.ISTORE && insn.getOpcode() <= Opcodes.ASTORE) {
        int var = ((VarInsnNode) insn).var;
        stored.set(var);
        if (insn.getOpcode() == Opcodes.LSTORE || insn.getOpcode() == Opcodes.DSTORE) {
          stored.set(var + 1); // a two-slot value overwrites the next slot too
        }
      } else if (insn instanceof IincInsnNode) {
        stored.set(((IincInsnNode) insn).var);
      }
    }
    Frame<SourceValue>[] frames;
    try {
      frames = new Analyzer<>(new SourceInterpreter()).analyze("java/lang/Object", method);
    } catch (AnalyzerException e) {
      return own;
    }
    for (int i = 0; i < calls.size(); i++) {
      MethodInsnNode call = calls.get(i);
      Frame<SourceValue> frame = frames[method.instructions.indexOf(call)];
      if (frame == null || marked.contains(MethodRef.of(call.owner, call.name, call.desc))
          || !checked.contains(MethodRef.of(call.owner, call.name, call.desc))) {
        continue;
      }
      SourceValue value = frame.getStack(frame.getStackSize() - Type.getArgumentTypes(call.desc).length - 1);
      if (value.insns.size() == 1 && value.insns.iterator().next() instanceof VarInsnNode) {
        VarInsnNode load = (VarInsnNode) value.insns.iterator().next();
        if (load.getOpcode() == Opcodes.ALOAD && load.var < params && !stored.get(load.var)) {
          own[i] = load.var;
        }
      }
    }
    return own;
  }

  /**
   * Rewrites one call as the class comment says; returns the first local number it leaves free.
   * {@code own}: the local the receiver already is in ({@link #ownReceivers}), or -1 to copy it to
   * {@code receiver}.
   */
  private static int spill(MethodNode method, MethodInsnNode call, int receiver, boolean ccs, int own) {
    Type[] args = Type.getArgumentTypes(call.desc);
    int[] slots = new int[args.length];
    int next = receiver + 1;
    for (int i = 0; i < args.length; i++) {
      slots[i] = next;
      next += args[i].getSize();
    }
    InsnList before = new InsnList();
    for (int i = args.length - 1; i >= 0; i--) {
      before.add(new VarInsnNode(args[i].getOpcode(Opcodes.ISTORE), slots[i]));
    }
    // The receiver: into a local of its own, or dropped and loaded again from the one it came from
    // (pop; aload: how ResumeChecks tells which local to compare).
    before.add(own < 0 ? new VarInsnNode(Opcodes.ASTORE, receiver) : new InsnNode(Opcodes.POP));
    LabelNode start = new LabelNode();
    before.add(start);
    before.add(new VarInsnNode(Opcodes.ALOAD, own < 0 ? receiver : own));
    for (int i = 0; i < args.length; i++) {
      before.add(new VarInsnNode(args[i].getOpcode(Opcodes.ILOAD), slots[i]));
    }
    if (!ccs) {
      // The arguments are on the stack now: their locals hold null, which the engine neither saves
      // at a capture nor restores from the saved frame, so only the receiver costs anything there.
      // (A call marked @ccs keeps the loads next to the call: the engine walks back over them.)
      for (int i = 0; i < args.length; i++) {
        before.add(new InsnNode(Opcodes.ACONST_NULL));
        before.add(new VarInsnNode(Opcodes.ASTORE, slots[i]));
      }
    }
    method.instructions.insertBefore(call, before);
    InsnList after = new InsnList();
    LabelNode end = new LabelNode();
    after.add(end);
    Type result = Type.getReturnType(call.desc);
    if (ccs && result.getSort() != Type.VOID) {
      after.add(new VarInsnNode(result.getOpcode(Opcodes.ISTORE), next));
      after.add(new VarInsnNode(result.getOpcode(Opcodes.ILOAD), next));
      next += result.getSize();
    }
    if (own < 0) {
      after.add(new InsnNode(Opcodes.ACONST_NULL));
      after.add(new VarInsnNode(Opcodes.ASTORE, receiver));
    }
    for (int i = 0; ccs && i < args.length; i++) {
      if (args[i].getSort() == Type.OBJECT || args[i].getSort() == Type.ARRAY) {
        after.add(new InsnNode(Opcodes.ACONST_NULL));
        after.add(new VarInsnNode(Opcodes.ASTORE, slots[i]));
      }
    }
    method.instructions.insert(call, after);
    if (!ccs) {
      return next;
    }
    if (method.invisibleLocalVariableAnnotations == null) {
      method.invisibleLocalVariableAnnotations = new ArrayList<>();
    }
    method.invisibleLocalVariableAnnotations.add(new LocalVariableAnnotationNode(
        TypeReference.newTypeReference(TypeReference.LOCAL_VARIABLE).getValue(), null,
        new LabelNode[] {start}, new LabelNode[] {end}, new int[] {receiver}, CCS));
    return next;
  }
}
