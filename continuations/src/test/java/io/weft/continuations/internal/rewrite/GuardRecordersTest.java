package io.weft.continuations.internal.rewrite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.VarInsnNode;

/**
 * The rewriter gives each of Guard's entry and return checks the recorder the engine's prologue
 * of the same method looked up ({@code StackRecorder.get(); dup; astore r}, the local every capture
 * test of the method reads), so that the check costs no thread-local look-up of its own and sees
 * exactly the recorder the method's own capture code sees. Checked on the bytes: every check in
 * a method with that prologue loads that local, and no check is left without it.
 */
class GuardRecordersTest {
  private static final String CLIENT = "io.weft.continuations.testclient";
  private static final String RECORDER = "org/apache/commons/javaflow/core/StackRecorder";
  private static final String GUARD = "io/weft/continuations/internal/runtime/Guard";

  @Test
  void everyGuardCheckOfARewrittenMethodIsGivenItsProloguesRecorder() throws Exception {
    ClassLoader parent = getClass().getClassLoader();
    ClassRewriter rewriter = ClassRewriter.over(parent, ClassRewriter.prefixes(List.of(CLIENT)), Set.of());
    List<String> checked = new ArrayList<>();
    try {
      for (String internal : List.of("io/weft/continuations/testclient/LineTesterTask",
          "io/weft/continuations/testclient/EchoExchange")) {
        ClassNode node = new ClassNode();
        new ClassReader(rewriter.rewriteFrom(parent, internal.replace('/', '.')).bytes()).accept(node, 0);
        for (MethodNode method : node.methods) {
          int local = prologueLocal(method);
          for (AbstractInsnNode insn = method.instructions.getFirst(); insn != null; insn = insn.getNext()) {
            if (!(insn instanceof MethodInsnNode) || !((MethodInsnNode) insn).owner.equals(GUARD)) {
              continue;
            }
            MethodInsnNode call = (MethodInsnNode) insn;
            if (!call.name.equals("onEntry") && !call.name.equals("onReturn")) {
              continue;
            }
            String where = internal + "." + method.name + method.desc + " " + call.name;
            assertTrue(local >= 0, where + ": a Guard check in a method without the engine's prologue");
            assertEquals("(L" + RECORDER + ";)V", call.desc, where + " looks the recorder up again");
            AbstractInsnNode before = realBefore(call);
            assertTrue(before instanceof VarInsnNode && before.getOpcode() == Opcodes.ALOAD
                && ((VarInsnNode) before).var == local, where + " is not given the prologue's local " + local);
            checked.add(where);
          }
        }
      }
    } finally {
      rewriter.release();
    }
    // run, call and the read helper: entry and return checks of each.
    assertTrue(checked.size() >= 4, checked.toString());
  }

  /** The local JavaFlow's prologue stores the recorder in, if the method starts with it and never stores it again. */
  private static int prologueLocal(MethodNode method) {
    AbstractInsnNode first = real(method.instructions.getFirst());
    if (!(first instanceof MethodInsnNode) || !((MethodInsnNode) first).owner.equals(RECORDER)
        || !((MethodInsnNode) first).name.equals("get")) {
      return -1;
    }
    AbstractInsnNode store = real(first.getNext());
    if (store != null && store.getOpcode() == Opcodes.DUP) {
      store = real(store.getNext());
    }
    if (store == null || store.getOpcode() != Opcodes.ASTORE) {
      return -1;
    }
    int local = ((VarInsnNode) store).var;
    for (AbstractInsnNode insn = method.instructions.getFirst(); insn != null; insn = insn.getNext()) {
      if (insn != store && insn.getOpcode() == Opcodes.ASTORE && ((VarInsnNode) insn).var == local) {
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

  private static AbstractInsnNode realBefore(AbstractInsnNode insn) {
    AbstractInsnNode at = insn.getPrevious();
    while (at != null && at.getOpcode() < 0) {
      at = at.getPrevious();
    }
    return at;
  }
}
