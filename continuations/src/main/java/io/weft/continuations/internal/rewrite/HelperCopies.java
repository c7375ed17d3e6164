package io.weft.continuations.internal.rewrite;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Rewritten copies of transport-api's binary helpers for the build-time rewrite. The loader and
 * the agent rewrite {@code io.weft.transport.binary} where it loads, but a build step writes only
 * the classes it is given, and the helpers' own class in the transport-api jar stays as compiled:
 * a rewritten client whose read suspends inside one would fail there. So the build step writes a
 * rewritten copy of each helper a rewritten class calls into that class's package, under
 * {@link #copyName}, and points the class's calls at the copy. The copy is found wherever the
 * client's classes are, whatever the class path order, and leaves the helper itself as compiled
 * for everyone else.
 */
public final class HelperCopies {
  private HelperCopies() {}

  /**
   * The name of the copy of {@code helper} that the classes of {@code caller}'s package call:
   * {@code com/example/client/WeftBinary} for {@code io/weft/transport/binary/Binary}.
   */
  public static String copyName(String caller, String helper) {
    return caller.substring(0, caller.lastIndexOf('/') + 1) + "Weft" + helper.substring(helper.lastIndexOf('/') + 1);
  }

  /** True if the class in {@code classBytes} refers to class {@code internal} (its constant pool names it). */
  public static boolean refersTo(byte[] classBytes, String internal) {
    byte[] name = internal.getBytes(StandardCharsets.UTF_8);
    // A CONSTANT_Utf8 entry: tag 1, a two-byte length, the bytes. A class reference points at the
    // entry that holds exactly the internal name.
    byte[] entry = new byte[name.length + 3];
    entry[0] = 1;
    entry[1] = (byte) (name.length >>> 8);
    entry[2] = (byte) name.length;
    System.arraycopy(name, 0, entry, 3, name.length);
    return indexOf(classBytes, entry) >= 0;
  }

  /**
   * The class with every reference to a key of {@code renames} (an internal name) made to its
   * value, its own name included.
   *
   * @throws IllegalStateException if a reference is left that this pass does not rename (a
   *     generic signature, an annotation, a nest), rather than write a class that would still
   *     call the helper as compiled
   */
  public static byte[] rename(byte[] classBytes, Map<String, String> renames) {
    ClassReader reader = new ClassReader(classBytes);
    // No reader given: the constant pool is built anew, so no entry of the old names stays.
    ClassWriter writer = new ClassWriter(0);
    Names names = new Names(renames);
    reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
      @Override
      public void visit(int version, int access, String name, String sig, String superName, String[] itfs) {
        super.visit(version, access, names.type(name), sig, names.type(superName), names.types(itfs));
      }

      @Override
      public FieldVisitor visitField(int access, String name, String desc, String sig, Object value) {
        return super.visitField(access, name, names.desc(desc), sig, value);
      }

      @Override
      public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] ex) {
        return new RenamingMethod(super.visitMethod(access, name, names.desc(desc), sig, names.types(ex)), names);
      }
    }, 0);
    byte[] out = writer.toByteArray();
    for (String old : renames.keySet()) {
      if (indexOf(out, old.getBytes(StandardCharsets.UTF_8)) >= 0) {
        throw new IllegalStateException(reader.getClassName().replace('/', '.') + " refers to "
            + old.replace('/', '.') + " in a way the copy cannot redirect");
      }
    }
    return out;
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i <= haystack.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  /** Internal names, descriptors and constants with the renames applied. */
  private static final class Names {
    private final Map<String, String> renames;

    Names(Map<String, String> renames) {
      this.renames = renames;
    }

    String type(String internal) {
      if (internal == null) {
        return null;
      }
      if (internal.startsWith("[")) {
        return desc(internal);
      }
      return renames.getOrDefault(internal, internal);
    }

    String[] types(String[] internals) {
      if (internals == null) {
        return null;
      }
      String[] out = new String[internals.length];
      for (int i = 0; i < out.length; i++) {
        out[i] = type(internals[i]);
      }
      return out;
    }

    String desc(String desc) {
      if (desc == null) {
        return null;
      }
      String out = desc;
      for (Map.Entry<String, String> e : renames.entrySet()) {
        out = out.replace("L" + e.getKey() + ";", "L" + e.getValue() + ";");
      }
      return out;
    }

    Object constant(Object value) {
      if (value instanceof Type) {
        Type t = (Type) value;
        return t.getSort() == Type.METHOD ? Type.getMethodType(desc(t.getDescriptor()))
            : Type.getType(desc(t.getDescriptor()));
      }
      if (value instanceof Handle) {
        Handle h = (Handle) value;
        return new Handle(h.getTag(), type(h.getOwner()), h.getName(), desc(h.getDesc()), h.isInterface());
      }
      return value;
    }

    Object[] frame(Object[] types) {
      if (types == null) {
        return null;
      }
      Object[] out = types.clone();
      for (int i = 0; i < out.length; i++) {
        if (out[i] instanceof String) {
          out[i] = type((String) out[i]);
        }
      }
      return out;
    }
  }

  private static final class RenamingMethod extends MethodVisitor {
    private final Names names;

    RenamingMethod(MethodVisitor next, Names names) {
      super(Opcodes.ASM9, next);
      this.names = names;
    }

    @Override
    public void visitMethodInsn(int opcode, String owner, String name, String desc, boolean itf) {
      super.visitMethodInsn(opcode, names.type(owner), name, names.desc(desc), itf);
    }

    @Override
    public void visitFieldInsn(int opcode, String owner, String name, String desc) {
      super.visitFieldInsn(opcode, names.type(owner), name, names.desc(desc));
    }

    @Override
    public void visitTypeInsn(int opcode, String type) {
      super.visitTypeInsn(opcode, names.type(type));
    }

    @Override
    public void visitLdcInsn(Object value) {
      super.visitLdcInsn(names.constant(value));
    }

    @Override
    public void visitInvokeDynamicInsn(String name, String desc, Handle bsm, Object... args) {
      Object[] mapped = new Object[args.length];
      for (int i = 0; i < args.length; i++) {
        mapped[i] = names.constant(args[i]);
      }
      super.visitInvokeDynamicInsn(name, names.desc(desc), (Handle) names.constant(bsm), mapped);
    }

    @Override
    public void visitFrame(int type, int numLocal, Object[] local, int numStack, Object[] stack) {
      super.visitFrame(type, numLocal, names.frame(local), numStack, names.frame(stack));
    }

    @Override
    public void visitLocalVariable(String name, String desc, String sig, Label start, Label end, int index) {
      super.visitLocalVariable(name, names.desc(desc), sig, start, end, index);
    }

    @Override
    public void visitTryCatchBlock(Label start, Label end, Label handler, String type) {
      super.visitTryCatchBlock(start, end, handler, names.type(type));
    }

    @Override
    public void visitMultiANewArrayInsn(String desc, int dims) {
      super.visitMultiANewArrayInsn(names.desc(desc), dims);
    }
  }
}
