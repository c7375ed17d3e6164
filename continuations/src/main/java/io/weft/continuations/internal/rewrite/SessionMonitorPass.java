package io.weft.continuations.internal.rewrite;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.FrameNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TryCatchBlockNode;
import org.objectweb.asm.tree.VarInsnNode;

/**
 * Turns the monitors whose region can suspend into session monitors, before the engine rewrites
 * the method. A suspend inside a plain monitor would leave it (the engine releases the thread's
 * monitors when it captures a frame and takes them again when it restores it), so another session
 * could enter the region while this one waits inside. A session monitor
 * ({@code internal.runtime.SessionMonitors}) is held by the session instead: a session that meets
 * it held suspends until it is free, reentrantly, and it is released on every way out.
 *
 * <p>The thread's own monitor is still taken, always before the session monitor, so that code which
 * is not rewritten and synchronizes on the same object is kept out while the session runs in the
 * region, and {@code Thread.holdsLock} answers as in any other mode. A block's
 * {@code monitorenter obj} becomes {@code monitorenter obj; SessionMonitors.enter(obj)}, and each
 * of its {@code monitorexit obj} (javac's exception handler's included)
 * {@code monitorexit obj; SessionMonitors.exit(obj)}. A synchronized method keeps its flag (the JVM
 * takes the thread's monitor on every call, restores included) and gets
 * {@code SessionMonitors.enter} first, {@code exit} before each return, and a catch-all handler
 * that exits and rethrows. Regions that cannot suspend stay as they are.
 */
final class SessionMonitorPass {
  static final String MONITORS = "io/weft/continuations/internal/runtime/SessionMonitors";
  private static final String ONE_OBJECT = "(Ljava/lang/Object;)V";

  /**
   * What to turn in one method.
   *
   * @param regions the blocks, numbered as {@link MonitorRegions} numbers them
   * @param method true if the method is synchronized and can suspend
   */
  record Plan(Set<Integer> regions, boolean method) {}

  private SessionMonitorPass() {}

  /**
   * A visitor that buffers the method, turns its monitors as {@code plan} says, and passes it
   * on to {@code next}.
   *
   * @param frames true if the class file carries stack map frames (version 50 and later)
   */
  static MethodVisitor apply(MethodVisitor next, String owner, int access, String name, String desc,
      String sig, String[] ex, Plan plan, boolean frames) {
    return new MethodNode(Opcodes.ASM9, access, name, desc, sig, ex) {
      @Override
      public void visitEnd() {
        super.visitEnd();
        blocks(this, plan.regions());
        if (plan.method()) {
          method(this, owner, frames);
        }
        accept(next);
      }
    };
  }

  private static void blocks(MethodNode m, Set<Integer> regions) {
    if (regions.isEmpty()) {
      return;
    }
    int[][] held = MonitorRegions.held(m);
    AbstractInsnNode[] insns = m.instructions.toArray();
    int ordinal = 0;
    for (int i = 0; i < insns.length; i++) {
      AbstractInsnNode insn = insns[i];
      if (insn.getOpcode() == Opcodes.MONITORENTER) {
        if (regions.contains(ordinal++) && held[i] != null) {
          m.instructions.insertBefore(insn, new InsnNode(Opcodes.DUP));
          m.instructions.insert(insn, call("enter"));
        }
      } else if (insn.getOpcode() == Opcodes.MONITOREXIT && held[i] != null && held[i].length > 0
          && regions.contains(held[i][held[i].length - 1])) {
        m.instructions.insertBefore(insn, new InsnNode(Opcodes.DUP));
        m.instructions.insert(insn, call("exit"));
      }
    }
    m.maxStack += 1;
  }

  private static void method(MethodNode m, String owner, boolean frames) {
    boolean isStatic = (m.access & Opcodes.ACC_STATIC) != 0;
    LabelNode start = new LabelNode();
    InsnList head = new InsnList();
    head.add(monitor(owner, isStatic));
    head.add(call("enter"));
    head.add(start);
    for (AbstractInsnNode insn : m.instructions.toArray()) {
      int op = insn.getOpcode();
      if (op >= Opcodes.IRETURN && op <= Opcodes.RETURN) {
        InsnList exit = new InsnList();
        exit.add(monitor(owner, isStatic));
        exit.add(call("exit"));
        m.instructions.insertBefore(insn, exit);
      }
    }
    m.instructions.insert(head);
    LabelNode end = new LabelNode();
    LabelNode handler = new LabelNode();
    m.instructions.add(end);
    m.instructions.add(handler);
    if (frames) {
      m.instructions.add(new FrameNode(Opcodes.F_FULL, 0, parameters(owner, m.desc, isStatic).toArray(), 1,
          new Object[] {"java/lang/Throwable"}));
    }
    m.instructions.add(monitor(owner, isStatic));
    m.instructions.add(call("exit"));
    m.instructions.add(new InsnNode(Opcodes.ATHROW));
    // Last in the table: the method's own handlers come first.
    m.tryCatchBlocks.add(new TryCatchBlockNode(start, end, handler, null));
    m.maxStack += 2;
  }

  /** The locals on entry, as a full frame names them. */
  private static List<Object> parameters(String owner, String desc, boolean isStatic) {
    List<Object> locals = new ArrayList<>();
    if (!isStatic) {
      locals.add(owner);
    }
    for (Type t : Type.getArgumentTypes(desc)) {
      switch (t.getSort()) {
        case Type.BOOLEAN: case Type.BYTE: case Type.CHAR: case Type.SHORT: case Type.INT:
          locals.add(Opcodes.INTEGER);
          break;
        case Type.FLOAT:
          locals.add(Opcodes.FLOAT);
          break;
        case Type.LONG:
          locals.add(Opcodes.LONG);
          break;
        case Type.DOUBLE:
          locals.add(Opcodes.DOUBLE);
          break;
        case Type.ARRAY:
          locals.add(t.getDescriptor());
          break;
        default:
          locals.add(t.getInternalName());
      }
    }
    return locals;
  }

  /** The object a synchronized method locks: {@code this}, or its class. */
  private static AbstractInsnNode monitor(String owner, boolean isStatic) {
    return isStatic ? new LdcInsnNode(Type.getObjectType(owner)) : new VarInsnNode(Opcodes.ALOAD, 0);
  }

  private static MethodInsnNode call(String name) {
    return new MethodInsnNode(Opcodes.INVOKESTATIC, MONITORS, name, ONE_OBJECT, false);
  }
}
