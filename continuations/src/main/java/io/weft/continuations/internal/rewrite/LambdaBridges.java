package io.weft.continuations.internal.rewrite;

import io.weft.continuations.internal.runtime.SuspendingLambdas;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * The rewrite's part for lambdas that can suspend, in one class being rewritten: points each such
 * lambda site at {@link SuspendingLambdas#metafactory}, and gives it a body of the form JavaFlow
 * instruments a lambda's class for, a static {@code lambda$} method of the class itself.
 *
 * <p>JavaFlow rewrites the class {@code SuspendingLambdas} makes only when the body it calls is a
 * {@code lambda$} method (as javac compiles a lambda's body); a method reference's target
 * ({@code t::readLine}, {@code this::exchange}, {@code Type::method}) is not one. So each site gets
 * a bridge, {@code lambda$weft$n}: static, taking what the lambda captures and then the interface
 * method's arguments, calling the target with the casts and boxing the JDK's class would make,
 * and marked {@code @continuable} so that the engine rewrites it with the rest of the class. The
 * site's body handle is replaced by the bridge's. One instance per class rewrite.
 */
final class LambdaBridges {
  private static final String PREFIX = "lambda$weft$";
  private final String host;
  private final boolean hostIsInterface;
  private final Set<String> sites;
  private final List<Bridge> bridges = new ArrayList<>();

  private record Bridge(String name, String desc, Handle target, Type samType) {}

  LambdaBridges(String host, boolean hostIsInterface, Set<String> sites) {
    this.host = host;
    this.hostIsInterface = hostIsInterface;
    this.sites = sites;
  }

  /** {@code mv} with the lambda sites of {@code maker} that can suspend retargeted. */
  MethodVisitor wrap(MethodVisitor mv, MethodRef maker) {
    if (sites.isEmpty()) {
      return mv;
    }
    return new MethodVisitor(Opcodes.ASM9, mv) {
      private int ordinal;

      @Override
      public void visitInvokeDynamicInsn(String name, String desc, Handle bsm, Object... args) {
        if (!LambdaProxies.isLambdaSite(bsm, args)
            || !sites.contains(SuspendableAnalysis.lambdaKey(maker, ordinal++))) {
          super.visitInvokeDynamicInsn(name, desc, bsm, args);
          return;
        }
        Type samType = (Type) args[0];
        Handle target = (Handle) args[1];
        Object[] retargeted = args.clone();
        if (!(target.getOwner().equals(host) && target.getName().startsWith("lambda$")
            && target.getTag() == Opcodes.H_INVOKESTATIC)) {
          List<Type> params = new ArrayList<>(List.of(Type.getArgumentTypes(desc)));
          params.addAll(List.of(samType.getArgumentTypes()));
          String bridgeDesc = Type.getMethodDescriptor(samType.getReturnType(), params.toArray(new Type[0]));
          Bridge bridge = new Bridge(PREFIX + bridges.size(), bridgeDesc, target, samType);
          bridges.add(bridge);
          retargeted[1] = new Handle(Opcodes.H_INVOKESTATIC, host, bridge.name(), bridgeDesc, hostIsInterface);
        }
        super.visitInvokeDynamicInsn(name, desc, new Handle(Opcodes.H_INVOKESTATIC,
            SuspendingLambdas.INTERNAL_NAME, "metafactory", SuspendingLambdas.BOOTSTRAP_DESCRIPTOR, false),
            retargeted);
      }
    };
  }

  /** The names and descriptors of the bridges written, to be marked {@code @continuable}. */
  List<MethodRef> bridges() {
    List<MethodRef> out = new ArrayList<>();
    for (Bridge b : bridges) {
      out.add(MethodRef.of(host, b.name(), b.desc()));
    }
    return out;
  }

  /** Writes the bridges into the class; call once every method has been visited. */
  void emit(ClassVisitor cv) {
    for (Bridge b : bridges) {
      MethodVisitor mv = cv.visitMethod(Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | Opcodes.ACC_SYNTHETIC,
          b.name(), b.desc(), null, new String[] {"java/lang/Throwable"});
      mv.visitAnnotation(SuspendableAnalysis.CONTINUABLE, false).visitEnd();
      mv.visitCode();
      Handle t = b.target();
      boolean instance = t.getTag() != Opcodes.H_INVOKESTATIC;
      List<Type> targetParams = new ArrayList<>();
      if (instance) {
        targetParams.add(Type.getObjectType(t.getOwner()));
      }
      targetParams.addAll(List.of(Type.getArgumentTypes(t.getDesc())));
      Type[] params = Type.getArgumentTypes(b.desc());
      int slot = 0;
      int stack = 0;
      for (int i = 0; i < params.length; i++) {
        mv.visitVarInsn(params[i].getOpcode(Opcodes.ILOAD), slot);
        slot += params[i].getSize();
        convert(mv, params[i], targetParams.get(i));
        stack += Math.max(params[i].getSize(), targetParams.get(i).getSize());
      }
      int opcode;
      switch (t.getTag()) {
        case Opcodes.H_INVOKESTATIC:
          opcode = Opcodes.INVOKESTATIC;
          break;
        case Opcodes.H_INVOKEINTERFACE:
          opcode = Opcodes.INVOKEINTERFACE;
          break;
        case Opcodes.H_INVOKESPECIAL:
          // Only a private method of this class reaches here (the analysis refuses super:: calls).
          opcode = t.isInterface() ? Opcodes.INVOKEINTERFACE : Opcodes.INVOKEVIRTUAL;
          break;
        default:
          opcode = Opcodes.INVOKEVIRTUAL;
      }
      mv.visitMethodInsn(opcode, t.getOwner(), t.getName(), t.getDesc(), t.isInterface());
      Type returned = Type.getReturnType(t.getDesc());
      Type wanted = b.samType().getReturnType();
      if (wanted.getSort() == Type.VOID) {
        if (returned.getSort() != Type.VOID) {
          mv.visitInsn(returned.getSize() == 2 ? Opcodes.POP2 : Opcodes.POP);
        }
      } else {
        convert(mv, returned, wanted);
      }
      mv.visitInsn(wanted.getOpcode(Opcodes.IRETURN));
      mv.visitMaxs(Math.max(stack, 2) + 2, Math.max(slot, 1));
      mv.visitEnd();
    }
  }

  /** Casts, boxing and unboxing, as the JDK's class for a lambda converts (the analysis refuses widening). */
  private static void convert(MethodVisitor mv, Type from, Type to) {
    if (from.equals(to)) {
      return;
    }
    boolean fromRef = from.getSort() >= Type.ARRAY;
    boolean toRef = to.getSort() >= Type.ARRAY;
    if (fromRef && toRef) {
      if (!to.getDescriptor().equals("Ljava/lang/Object;")) {
        mv.visitTypeInsn(Opcodes.CHECKCAST, to.getInternalName());
      }
    } else if (fromRef) {
      String box = box(to);
      mv.visitTypeInsn(Opcodes.CHECKCAST, box);
      mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, box, to.getClassName() + "Value", "()" + to.getDescriptor(), false);
    } else if (toRef) {
      String box = box(from);
      mv.visitMethodInsn(Opcodes.INVOKESTATIC, box, "valueOf", "(" + from.getDescriptor() + ")L" + box + ";", false);
      if (!to.getDescriptor().equals("Ljava/lang/Object;") && !to.getInternalName().equals(box)) {
        mv.visitTypeInsn(Opcodes.CHECKCAST, to.getInternalName());
      }
    }
  }

  private static String box(Type primitive) {
    switch (primitive.getSort()) {
      case Type.BOOLEAN:
        return "java/lang/Boolean";
      case Type.CHAR:
        return "java/lang/Character";
      case Type.BYTE:
        return "java/lang/Byte";
      case Type.SHORT:
        return "java/lang/Short";
      case Type.INT:
        return "java/lang/Integer";
      case Type.FLOAT:
        return "java/lang/Float";
      case Type.LONG:
        return "java/lang/Long";
      case Type.DOUBLE:
        return "java/lang/Double";
      default:
        throw new IllegalArgumentException(primitive.toString());
    }
  }
}
