package io.weft.continuations.internal.rewrite;

import io.weft.continuations.internal.runtime.Access;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * The loader split's accessor pass: in a class the continuation loader defines, every access to a
 * member that is not public of a class the parent defines (same package name, another run-time
 * package) becomes an {@code invokedynamic} bound by {@link Access} to that member. So an
 * exception or value type of an instrumented package, which has nothing to rewrite, stays the
 * parent's class (the one the caller names), and the rewritten client still makes it with its
 * package-private constructor. A constructor call ({@code new T; dup; args; invokespecial}) loses
 * its {@code new} and {@code dup} and becomes a factory call; frames are computed afresh.
 */
final class CrossLoaderAccess {
  private static final Handle BOOTSTRAP =
      new Handle(Opcodes.H_INVOKESTATIC, Access.INTERNAL_NAME, "bootstrap", Access.DESCRIPTOR, false);

  /** Which accesses need an accessor, and the class hierarchy for frames. */
  interface Needs {
    boolean accessor(String from, int opcode, String owner, String name, String desc);

    /** The superclass of {@code internal}, null for Object or an unknown class. */
    String superclass(String internal);

    boolean isInterface(String internal);
  }

  private CrossLoaderAccess() {}

  static byte[] apply(String internal, byte[] bytes, Needs needs) {
    ClassReader reader = new ClassReader(bytes);
    ClassWriter writer = new HierarchyWriter(needs);
    reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
      @Override
      public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] ex) {
        return new Accessors(internal, super.visitMethod(access, name, desc, sig, ex), needs);
      }
    }, ClassReader.SKIP_FRAMES);
    return writer.toByteArray();
  }

  /** Rewrites one method's accesses; tracks each {@code new} to pair it with its constructor call. */
  private static final class Accessors extends MethodVisitor {
    private final String from;
    private final Needs needs;
    /** The open {@code new}s, innermost first: the type, and whether it became a factory call. */
    private final Deque<Object[]> news = new ArrayDeque<>();
    /** A {@code new} held back until the next instruction shows whether it is {@code new; dup}. */
    private String held;

    Accessors(String from, MethodVisitor mv, Needs needs) {
      super(Opcodes.ASM9, mv);
      this.from = from;
      this.needs = needs;
    }

    /** Emits a held {@code new} as it was: not followed by {@code dup}, so its constructor call stays. */
    private void flush() {
      if (held != null) {
        super.visitTypeInsn(Opcodes.NEW, held);
        news.push(new Object[] {held, false});
        held = null;
      }
    }

    @Override
    public void visitTypeInsn(int opcode, String type) {
      flush();
      if (opcode == Opcodes.NEW && needs.accessor(from, Opcodes.NEW, type, "<init>", null)) {
        held = type;
        return;
      }
      if (opcode == Opcodes.NEW) {
        news.push(new Object[] {type, false});
      }
      super.visitTypeInsn(opcode, type);
    }

    @Override
    public void visitInsn(int opcode) {
      if (held != null && opcode == Opcodes.DUP) {
        news.push(new Object[] {held, true});
        held = null;
        return;
      }
      flush();
      super.visitInsn(opcode);
    }

    @Override
    public void visitMethodInsn(int opcode, String owner, String name, String desc, boolean itf) {
      flush();
      if (opcode == Opcodes.INVOKESPECIAL && name.equals("<init>")) {
        Object[] open = news.peek();
        if (open != null && open[0].equals(owner)) {
          news.pop();
          if ((Boolean) open[1]) {
            Type made = Type.getObjectType(owner);
            String factory = Type.getMethodDescriptor(made, Type.getArgumentTypes(desc));
            super.visitInvokeDynamicInsn("new", factory, BOOTSTRAP, made, Access.NEW);
            return;
          }
        }
        super.visitMethodInsn(opcode, owner, name, desc, itf);
        return;
      }
      if (opcode != Opcodes.INVOKESPECIAL && needs.accessor(from, opcode, owner, name, desc)) {
        String type = opcode == Opcodes.INVOKESTATIC ? desc : withReceiver(owner, desc);
        super.visitInvokeDynamicInsn(name, type, BOOTSTRAP, Type.getObjectType(owner), opcode);
        return;
      }
      super.visitMethodInsn(opcode, owner, name, desc, itf);
    }

    @Override
    public void visitFieldInsn(int opcode, String owner, String name, String desc) {
      flush();
      if (needs.accessor(from, opcode, owner, name, desc)) {
        String receiver = Type.getObjectType(owner).getDescriptor();
        String type;
        switch (opcode) {
          case Opcodes.GETFIELD:
            type = "(" + receiver + ")" + desc;
            break;
          case Opcodes.PUTFIELD:
            type = "(" + receiver + desc + ")V";
            break;
          case Opcodes.GETSTATIC:
            type = "()" + desc;
            break;
          default:
            type = "(" + desc + ")V";
            break;
        }
        super.visitInvokeDynamicInsn(name, type, BOOTSTRAP, Type.getObjectType(owner), opcode);
        return;
      }
      super.visitFieldInsn(opcode, owner, name, desc);
    }

    private static String withReceiver(String owner, String desc) {
      return "(" + Type.getObjectType(owner).getDescriptor() + desc.substring(1);
    }

    @Override
    public void visitIntInsn(int opcode, int operand) {
      flush();
      super.visitIntInsn(opcode, operand);
    }

    @Override
    public void visitVarInsn(int opcode, int var) {
      flush();
      super.visitVarInsn(opcode, var);
    }

    @Override
    public void visitInvokeDynamicInsn(String name, String desc, Handle bsm, Object... args) {
      flush();
      super.visitInvokeDynamicInsn(name, desc, bsm, args);
    }

    @Override
    public void visitJumpInsn(int opcode, Label label) {
      flush();
      super.visitJumpInsn(opcode, label);
    }

    @Override
    public void visitLabel(Label label) {
      flush();
      super.visitLabel(label);
    }

    @Override
    public void visitLdcInsn(Object value) {
      flush();
      super.visitLdcInsn(value);
    }

    @Override
    public void visitIincInsn(int var, int increment) {
      flush();
      super.visitIincInsn(var, increment);
    }

    @Override
    public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
      flush();
      super.visitTableSwitchInsn(min, max, dflt, labels);
    }

    @Override
    public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
      flush();
      super.visitLookupSwitchInsn(dflt, keys, labels);
    }

    @Override
    public void visitMultiANewArrayInsn(String desc, int dims) {
      flush();
      super.visitMultiANewArrayInsn(desc, dims);
    }

    @Override
    public void visitLineNumber(int line, Label start) {
      flush();
      super.visitLineNumber(line, start);
    }

    @Override
    public void visitMaxs(int maxStack, int maxLocals) {
      flush();
      super.visitMaxs(maxStack, maxLocals);
    }
  }

  /** Computes frames with the analysis' view of the class hierarchy, loading no class. */
  private static final class HierarchyWriter extends ClassWriter {
    private final Needs needs;

    HierarchyWriter(Needs needs) {
      super(ClassWriter.COMPUTE_FRAMES);
      this.needs = needs;
    }

    @Override
    protected String getCommonSuperClass(String type1, String type2) {
      if (type1.equals(type2)) {
        return type1;
      }
      if (needs.isInterface(type1) || needs.isInterface(type2)) {
        return "java/lang/Object";
      }
      Set<String> chain = new HashSet<>();
      for (String t = type1; t != null; t = needs.superclass(t)) {
        chain.add(t);
      }
      for (String t = type2; t != null; t = needs.superclass(t)) {
        if (chain.contains(t)) {
          return t;
        }
      }
      return "java/lang/Object";
    }
  }
}
