package io.weft.continuations.internal.rewrite;

import io.weft.continuations.internal.runtime.Guard;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.VarInsnNode;

/**
 * Hands {@link Guard}'s entry and return checks the stack recorder the engine's prologue already
 * looked up, instead of a thread-local look-up of their own. JavaFlow's prologue of a rewritten
 * method is {@code StackRecorder.get(); dup; astore r}, and every capture test of the method reads
 * {@code r}: the engine itself relies on {@code r} being the current recorder for the whole
 * activation (a nested {@code StackRecorder.execute} puts the thread's recorder back before it
 * returns, and a suspend leaves the method, whose resume runs the prologue again). So {@code
 * Guard.onEntry(r)} and {@code Guard.onReturn(r)} see what {@code Guard.onEntry()} and {@code
 * onReturn()} would look up. A method whose code is not in that shape (no prologue first, or a
 * second store to {@code r}) keeps the calls without an argument.
 */
final class GuardRecorders {
  private static final String RECORDER = "org/apache/commons/javaflow/core/StackRecorder";
  private static final String WITH_RECORDER = "(L" + RECORDER + ";)V";

  private GuardRecorders() {}

  /** {@code bytes} (JavaFlow's output) with the checks given the prologue's recorder; the same array if none. */
  static byte[] apply(byte[] bytes) {
    ClassNode node = new ClassNode();
    new ClassReader(bytes).accept(node, 0);
    boolean changed = false;
    for (MethodNode method : node.methods) {
      int local = prologueLocal(method);
      if (local < 0) {
        continue;
      }
      for (AbstractInsnNode insn : method.instructions.toArray()) {
        if (isGuardCheck(insn)) {
          MethodInsnNode call = (MethodInsnNode) insn;
          method.instructions.insertBefore(call, new VarInsnNode(Opcodes.ALOAD, local));
          call.desc = WITH_RECORDER;
          changed = true;
        }
      }
    }
    if (!changed) {
      return bytes;
    }
    ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_MAXS);
    node.accept(writer);
    return writer.toByteArray();
  }

  private static boolean isGuardCheck(AbstractInsnNode insn) {
    if (!(insn instanceof MethodInsnNode) || insn.getOpcode() != Opcodes.INVOKESTATIC) {
      return false;
    }
    MethodInsnNode call = (MethodInsnNode) insn;
    return call.owner.equals(Guard.INTERNAL_NAME) && call.desc.equals("()V")
        && (call.name.equals("onEntry") || call.name.equals("onReturn"));
  }

  /** The local the prologue stores the recorder in, if the method starts with it and never stores it again; else -1. */
  static int prologueLocal(MethodNode method) {
    AbstractInsnNode first = real(method.instructions.getFirst());
    if (!(first instanceof MethodInsnNode) || first.getOpcode() != Opcodes.INVOKESTATIC
        || !((MethodInsnNode) first).owner.equals(RECORDER) || !((MethodInsnNode) first).name.equals("get")) {
      return -1;
    }
    AbstractInsnNode store = real(first.getNext());
    if (store != null && store.getOpcode() == Opcodes.DUP) {
      // JavaFlow's own: get; dup; astore r; ifnull (the copy is tested).
      store = real(store.getNext());
    }
    if (store == null || store.getOpcode() != Opcodes.ASTORE) {
      return -1;
    }
    int local = ((VarInsnNode) store).var;
    for (AbstractInsnNode insn = method.instructions.getFirst(); insn != null; insn = insn.getNext()) {
      if (insn != store && insn instanceof VarInsnNode && ((VarInsnNode) insn).var == local
          && insn.getOpcode() >= Opcodes.ISTORE && insn.getOpcode() <= Opcodes.ASTORE) {
        return -1;
      }
      if (insn.getOpcode() == Opcodes.IINC && ((org.objectweb.asm.tree.IincInsnNode) insn).var == local) {
        return -1;
      }
    }
    return local;
  }

  private static AbstractInsnNode real(AbstractInsnNode insn) {
    while (insn != null && insn.getOpcode() < 0) {
      insn = insn.getNext();
    }
    return insn;
  }
}
