package io.weft.continuations.internal.rewrite;

import java.util.ArrayDeque;
import java.util.Arrays;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LookupSwitchInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TableSwitchInsnNode;
import org.objectweb.asm.tree.TryCatchBlockNode;

/**
 * Which {@code synchronized} regions each instruction of a method is inside, followed along the
 * method's control flow (jumps, switches, exception handlers) as the JVM's structured locking
 * sees it, not in code order: javac puts a region's exception handler, and the release before an
 * early {@code return}, in the middle of the enclosing code. A region is numbered by its
 * {@code MONITORENTER}'s place among the method's ones in code order, which the analysis and the
 * rewrite both read from the same bytes.
 */
final class MonitorRegions {
  private static final int[] NONE = new int[0];

  private MonitorRegions() {}

  /**
   * The regions held before each instruction, outermost first; null for an instruction no path
   * reaches. A {@code MONITOREXIT} leaves the innermost region, as javac's code always does.
   */
  static int[][] held(MethodNode m) {
    AbstractInsnNode[] insns = m.instructions.toArray();
    int[] ordinal = new int[insns.length];
    int count = 0;
    for (int i = 0; i < insns.length; i++) {
      ordinal[i] = insns[i].getOpcode() == Opcodes.MONITORENTER ? count++ : -1;
    }
    int[][] held = new int[insns.length][];
    ArrayDeque<Integer> work = new ArrayDeque<>();
    if (insns.length > 0) {
      held[0] = NONE;
      work.add(0);
    }
    while (!work.isEmpty()) {
      int i = work.poll();
      int[] before = held[i];
      AbstractInsnNode insn = insns[i];
      for (TryCatchBlockNode t : m.tryCatchBlocks) {
        if (m.instructions.indexOf(t.start) <= i && i < m.instructions.indexOf(t.end)) {
          flow(held, work, m.instructions.indexOf(t.handler), before);
        }
      }
      int op = insn.getOpcode();
      int[] after = before;
      if (op == Opcodes.MONITORENTER) {
        after = Arrays.copyOf(before, before.length + 1);
        after[before.length] = ordinal[i];
      } else if (op == Opcodes.MONITOREXIT && before.length > 0) {
        after = Arrays.copyOf(before, before.length - 1);
      }
      if (insn instanceof JumpInsnNode) {
        flow(held, work, m.instructions.indexOf(((JumpInsnNode) insn).label), after);
      } else if (insn instanceof TableSwitchInsnNode) {
        TableSwitchInsnNode s = (TableSwitchInsnNode) insn;
        flow(held, work, m.instructions.indexOf(s.dflt), after);
        for (LabelNode l : s.labels) {
          flow(held, work, m.instructions.indexOf(l), after);
        }
      } else if (insn instanceof LookupSwitchInsnNode) {
        LookupSwitchInsnNode s = (LookupSwitchInsnNode) insn;
        flow(held, work, m.instructions.indexOf(s.dflt), after);
        for (LabelNode l : s.labels) {
          flow(held, work, m.instructions.indexOf(l), after);
        }
      }
      boolean ends = op == Opcodes.GOTO || op == Opcodes.ATHROW || op == Opcodes.RET
          || (op >= Opcodes.IRETURN && op <= Opcodes.RETURN) || insn instanceof TableSwitchInsnNode
          || insn instanceof LookupSwitchInsnNode;
      if (!ends && i + 1 < insns.length) {
        flow(held, work, i + 1, after);
      }
    }
    return held;
  }

  /** The number of regions ({@code MONITORENTER} instructions) in {@code m}. */
  static int count(MethodNode m) {
    int n = 0;
    for (AbstractInsnNode insn : m.instructions) {
      if (insn.getOpcode() == Opcodes.MONITORENTER) {
        n++;
      }
    }
    return n;
  }

  // Structured locking gives every path into an instruction the same regions, so the first
  // state that reaches it is the state.
  private static void flow(int[][] held, ArrayDeque<Integer> work, int to, int[] state) {
    if (held[to] == null) {
      held[to] = state;
      work.add(to);
    }
  }
}
