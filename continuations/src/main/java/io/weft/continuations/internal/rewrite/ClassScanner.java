package io.weft.continuations.internal.rewrite;

import java.util.ArrayList;
import java.util.List;
import org.objectweb.asm.AnnotationVisitor;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * Reads one class file into a {@link ClassInfo}: the only place the analysis looks at bytecode.
 * Code is read for the classes the analysis may walk into, and only their headers for the JDK's,
 * Weft's and the shared libraries'. Calls are recorded as the instructions name them; the
 * {@link ClassIndex} then applies the call-site redirects to the classes that will be rewritten.
 */
final class ClassScanner {
  static final String CONTINUABLE = "Lorg/apache/commons/javaflow/api/continuable;";
  static final String SKIP = "Lorg/apache/commons/javaflow/core/Skip;";

  private ClassScanner() {}

  static ClassInfo read(byte[] bytes, boolean withCode, boolean inScope) {
    ClassInfo info = new ClassInfo();
    new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9) {
      @Override
      public void visit(int version, int access, String name, String sig, String superName, String[] itfs) {
        info.name = name;
        info.access = access;
        info.superName = superName;
        info.interfaces = itfs == null ? new String[0] : itfs;
        if (superName != null) {
          info.refs.add(superName);
        }
        info.refs.addAll(List.of(info.interfaces));
      }

      @Override
      public AnnotationVisitor visitAnnotation(String desc, boolean visible) {
        if (SKIP.equals(desc) || ClassRewriter.MARKER.equals(desc)) {
          info.rewritten = true;
        }
        if (ClassRewriter.MARKER.equals(desc)) {
          info.marked = true;
        }
        return null;
      }

      @Override
      public void visitNestHost(String host) {
        info.nestHost = host;
      }

      @Override
      public void visitNestMember(String member) {
        info.nestMembers.add(member);
      }

      @Override
      public FieldVisitor visitField(int access, String name, String desc, String sig, Object v) {
        info.fields.put(name, access);
        return null;
      }

      @Override
      public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] ex) {
        MethodInfo m = new MethodInfo(MethodRef.of(info.name, name, desc), access, ex == null ? new String[0] : ex);
        info.add(m);
        return new CodeReader(info, m);
      }
    }, (withCode ? 0 : ClassReader.SKIP_CODE) | ClassReader.SKIP_FRAMES);
    if (info.monitors) {
      regions(bytes, info);
    }
    info.inScope = inScope;
    info.hasCode = withCode;
    return info;
  }

  /**
   * For a class with {@code synchronized} blocks: which regions each call is inside, followed
   * along the control flow ({@link MonitorRegions}); the code-order count in {@link CodeReader}
   * only sees where a block starts.
   */
  private static void regions(byte[] bytes, ClassInfo info) {
    ClassNode node = new ClassNode();
    new ClassReader(bytes).accept(node, ClassReader.SKIP_FRAMES);
    for (MethodNode mn : node.methods) {
      MethodInfo m = info.method(MethodRef.of(info.name, mn.name, mn.desc));
      if (m == null || MonitorRegions.count(mn) == 0) {
        continue;
      }
      int[][] held = MonitorRegions.held(mn);
      List<Integer> enterLines = new ArrayList<>();
      int line = 0;
      int call = 0;
      for (AbstractInsnNode insn : mn.instructions) {
        if (insn instanceof LineNumberNode) {
          line = ((LineNumberNode) insn).line;
        } else if (insn.getOpcode() == Opcodes.MONITORENTER) {
          enterLines.add(line);
        } else if (insn instanceof MethodInsnNode && call < m.calls.size()) {
          int[] in = held[mn.instructions.indexOf(insn)];
          CallSite site = m.calls.get(call++);
          if (in != null) {
            List<Integer> monitors = new ArrayList<>();
            for (int r : in) {
              monitors.add(r);
            }
            m.calls.set(call - 1, new CallSite(site.opcode(), site.target(), site.line(),
                in.length == 0 ? 0 : enterLines.get(in[0]), List.copyOf(monitors)));
          }
        }
      }
    }
  }

  /** What one method's code calls, makes and looks up. */
  private static final class CodeReader extends MethodVisitor {
    private final ClassInfo info;
    private final MethodInfo m;
    private int line;
    private int monitors;
    private int monitorLine;
    private String lastType;
    private String pendingOwner;
    private String pendingName;

    CodeReader(ClassInfo info, MethodInfo m) {
      super(Opcodes.ASM9);
      this.info = info;
      this.m = m;
    }

    @Override
    public AnnotationVisitor visitAnnotation(String d, boolean visible) {
      if (CONTINUABLE.equals(d)) {
        m.annotated = true;
      }
      return null;
    }

    @Override
    public void visitLineNumber(int l, Label start) {
      line = l;
    }

    @Override
    public void visitInsn(int opcode) {
      if (opcode == Opcodes.MONITORENTER) {
        info.monitors = true;
        if (monitors++ == 0) {
          monitorLine = line;
        }
      } else if (opcode == Opcodes.MONITOREXIT && monitors > 0) {
        // The handler's second MONITOREXIT (after the block's own) finds the count at 0.
        monitors--;
      }
    }

    @Override
    public void visitMethodInsn(int op, String owner, String n, String d, boolean itf) {
      MethodRef called = MethodRef.of(owner, n, d);
      m.calls.add(new CallSite(op, called, line, monitors > 0 ? monitorLine : 0));
      info.refs.add(owner);
      info.methodUses.add(called);
      boolean methodLookup = owner.equals("java/lang/Class")
          && (n.equals("getMethod") || n.equals("getDeclaredMethod"));
      boolean handleLookup = owner.equals("java/lang/invoke/MethodHandles$Lookup") && n.startsWith("find")
          && !n.endsWith("Getter") && !n.endsWith("Setter") && !n.equals("findClass")
          && !n.equals("findConstructor");
      if ((methodLookup || handleLookup) && pendingOwner != null && pendingName != null) {
        info.lookups.add(new ClassInfo.Lookup(handleLookup, pendingOwner, pendingName));
      }
      if (isReflectiveInvoke(called) && m.reflectiveLine == 0) {
        m.reflectiveLine = line;
      }
    }

    @Override
    public void visitFieldInsn(int op, String owner, String n, String d) {
      info.refs.add(owner);
      info.fieldUses.add(new ClassInfo.FieldUse(owner, n));
    }

    @Override
    public void visitTypeInsn(int op, String type) {
      info.refs.add(type);
    }

    @Override
    public void visitLdcInsn(Object value) {
      if (value instanceof Type && ((Type) value).getSort() == Type.OBJECT) {
        lastType = ((Type) value).getInternalName();
        info.refs.add(lastType);
      } else if (value instanceof String) {
        // getMethod(name, ...) and findVirtual(type, name, ...): the class constant comes
        // just before the name; the parameter types after it.
        pendingOwner = lastType;
        pendingName = (String) value;
      }
    }

    @Override
    public void visitInvokeDynamicInsn(String n, String d, Handle bsm, Object... args) {
      if (LambdaProxies.isLambdaSite(bsm, args)) {
        Handle impl = (Handle) args[1];
        Type returned = Type.getReturnType(d);
        m.lambdas.add(new MethodInfo.LambdaSite(returned.getInternalName(),
            MethodRef.of(impl.getOwner(), impl.getName(), impl.getDesc()), line,
            MethodRef.of(returned.getInternalName(), n, d), impl, (Type) args[0], m.lambdas.size(),
            bsm.getName().equals("metafactory")));
        info.refs.add(impl.getOwner());
      }
    }
  }

  /** {@code Method.invoke} or {@code MethodHandle.invoke*}: a call the analysis may not be able to name. */
  static boolean isReflectiveInvoke(MethodRef call) {
    return (call.owner().equals("java/lang/reflect/Method") && call.name().equals("invoke"))
        || (call.owner().equals("java/lang/invoke/MethodHandle") && call.name().startsWith("invoke"));
  }
}
