package io.weft.continuations.internal.runtime;

import io.weft.continuations.internal.rewrite.ClassRewriter;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.CallSite;
import java.lang.invoke.ConstantCallSite;
import java.lang.invoke.LambdaConversionException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandleInfo;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import java.util.Set;
import org.apache.commons.javaflow.providers.core.ContinuableClassTransformationFactory;
import org.apache.commons.javaflow.spi.ResourceLoader;
import org.apache.commons.javaflow.spi.ResourceTransformer;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * The bootstrap the rewrite gives a lambda or method reference whose body can suspend, in place of
 * {@code LambdaMetafactory.metafactory}: it makes the same kind of class (one implementing the
 * functional interface, holding what the lambda captures, forwarding its interface method to the
 * body), but rewritten by JavaFlow, as retrolambda would have compiled it ahead of time. The
 * JDK's own class for a lambda cannot pass a suspend through: the engine restores a call's
 * receiver from the frame the callee captured, and the JDK's class captures none. Defined as a
 * hidden nestmate of the class that makes the lambda, so it calls a private body directly; made
 * once per call site, when the site links. Only the forms the rewrite retargets reach it: a plain
 * {@code metafactory} site whose body is a method (not a constructor, not a {@code super} call).
 */
public final class SuspendingLambdas {
  private static final String CONTINUABLE = "Lorg/apache/commons/javaflow/api/continuable;";
  /** The bootstrap's owner and descriptor, for the rewrite. */
  public static final String INTERNAL_NAME = "io/weft/continuations/internal/runtime/SuspendingLambdas";
  public static final String BOOTSTRAP_DESCRIPTOR = "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;"
      + "Ljava/lang/invoke/MethodType;Ljava/lang/invoke/MethodType;Ljava/lang/invoke/MethodHandle;"
      + "Ljava/lang/invoke/MethodType;)Ljava/lang/invoke/CallSite;";

  private SuspendingLambdas() {}

  /**
   * As {@code LambdaMetafactory.metafactory}, with a class whose interface method can suspend.
   *
   * @throws LambdaConversionException if the body's form is one the rewrite never retargets, or
   *     JavaFlow cannot rewrite the class
   */
  public static CallSite metafactory(MethodHandles.Lookup caller, String samName, MethodType factoryType,
      MethodType samType, MethodHandle body, MethodType instantiatedType) throws LambdaConversionException {
    MethodHandleInfo info = caller.revealDirect(body);
    if (info.getReferenceKind() == MethodHandleInfo.REF_newInvokeSpecial) {
      throw new LambdaConversionException("a constructor reference never suspends: " + info);
    }
    Class<?> host = caller.lookupClass();
    String name = Type.getInternalName(host) + "$$WeftLambda";
    byte[] plain = generate(name, samName, factoryType, samType, info);
    byte[] rewritten = rewrite(host.getClassLoader(), name, plain, info);
    try {
      MethodHandles.Lookup made = caller.defineHiddenClass(rewritten, true, MethodHandles.Lookup.ClassOption.NESTMATE);
      MethodHandle ctor = made.findConstructor(made.lookupClass(), factoryType.changeReturnType(void.class));
      return new ConstantCallSite(ctor.asType(factoryType));
    } catch (IllegalAccessException | NoSuchMethodException | LinkageError e) {
      LambdaConversionException failed = new LambdaConversionException("cannot define the rewritten class for " + info);
      failed.initCause(e);
      throw failed;
    }
  }

  /** The class as LambdaMetafactory would make it, with the interface method marked {@code @continuable}. */
  private static byte[] generate(String name, String samName, MethodType factoryType, MethodType samType,
      MethodHandleInfo info) throws LambdaConversionException {
    Class<?> iface = factoryType.returnType();
    ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_MAXS);
    cw.visit(Opcodes.V17, Opcodes.ACC_FINAL | Opcodes.ACC_SUPER | Opcodes.ACC_SYNTHETIC, name, null,
        "java/lang/Object", new String[] {Type.getInternalName(iface)});
    Class<?>[] captured = factoryType.parameterArray();
    for (int i = 0; i < captured.length; i++) {
      cw.visitField(Opcodes.ACC_PRIVATE | Opcodes.ACC_FINAL, "arg$" + i, Type.getDescriptor(captured[i]), null, null)
          .visitEnd();
    }
    MethodVisitor init = cw.visitMethod(Opcodes.ACC_PRIVATE, "<init>",
        factoryType.changeReturnType(void.class).toMethodDescriptorString(), null, null);
    init.visitCode();
    init.visitVarInsn(Opcodes.ALOAD, 0);
    init.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
    int slot = 1;
    for (int i = 0; i < captured.length; i++) {
      Type t = Type.getType(captured[i]);
      init.visitVarInsn(Opcodes.ALOAD, 0);
      init.visitVarInsn(t.getOpcode(Opcodes.ILOAD), slot);
      init.visitFieldInsn(Opcodes.PUTFIELD, name, "arg$" + i, t.getDescriptor());
      slot += t.getSize();
    }
    init.visitInsn(Opcodes.RETURN);
    init.visitMaxs(0, 0);
    init.visitEnd();

    MethodVisitor sam = cw.visitMethod(Opcodes.ACC_PUBLIC, samName, samType.toMethodDescriptorString(), null, null);
    sam.visitAnnotation(CONTINUABLE, false).visitEnd();
    sam.visitCode();
    int kind = info.getReferenceKind();
    boolean instance = kind != MethodHandleInfo.REF_invokeStatic;
    MethodType bodyType = info.getMethodType();
    Class<?>[] bodyParams = instance ? prepend(info.getDeclaringClass(), bodyType.parameterArray())
        : bodyType.parameterArray();
    if (bodyParams.length != captured.length + samType.parameterCount()) {
      throw new LambdaConversionException("arity: " + info + " for " + samType + " capturing " + factoryType);
    }
    for (int i = 0; i < captured.length; i++) {
      sam.visitVarInsn(Opcodes.ALOAD, 0);
      sam.visitFieldInsn(Opcodes.GETFIELD, name, "arg$" + i, Type.getDescriptor(captured[i]));
      convert(sam, captured[i], bodyParams[i]);
    }
    slot = 1;
    for (int k = 0; k < samType.parameterCount(); k++) {
      Type t = Type.getType(samType.parameterType(k));
      sam.visitVarInsn(t.getOpcode(Opcodes.ILOAD), slot);
      slot += t.getSize();
      convert(sam, samType.parameterType(k), bodyParams[captured.length + k]);
    }
    Class<?> owner = info.getDeclaringClass();
    boolean itf = owner.isInterface();
    int opcode;
    if (kind == MethodHandleInfo.REF_invokeStatic) {
      opcode = Opcodes.INVOKESTATIC;
    } else if (itf) {
      opcode = Opcodes.INVOKEINTERFACE;
    } else {
      // A private body (REF_invokeSpecial in older class files) is a nestmate's: invokevirtual reaches it.
      opcode = Opcodes.INVOKEVIRTUAL;
    }
    sam.visitMethodInsn(opcode, Type.getInternalName(owner), info.getName(), bodyType.toMethodDescriptorString(), itf);
    Class<?> returned = bodyType.returnType();
    Class<?> wanted = samType.returnType();
    if (wanted == void.class) {
      if (returned != void.class) {
        sam.visitInsn(Type.getType(returned).getSize() == 2 ? Opcodes.POP2 : Opcodes.POP);
      }
      sam.visitInsn(Opcodes.RETURN);
    } else {
      convert(sam, returned, wanted);
      sam.visitInsn(Type.getType(wanted).getOpcode(Opcodes.IRETURN));
    }
    sam.visitMaxs(0, 0);
    sam.visitEnd();
    cw.visitEnd();
    return cw.toByteArray();
  }

  private static Class<?>[] prepend(Class<?> first, Class<?>[] rest) {
    Class<?>[] out = new Class<?>[rest.length + 1];
    out[0] = first;
    System.arraycopy(rest, 0, out, 1, rest.length);
    return out;
  }

  /** The conversions LambdaMetafactory makes that the rewrite lets through: casts, boxing, unboxing. */
  private static void convert(MethodVisitor mv, Class<?> from, Class<?> to) throws LambdaConversionException {
    if (from == to) {
      return;
    }
    if (!from.isPrimitive() && !to.isPrimitive()) {
      if (to != Object.class) {
        mv.visitTypeInsn(Opcodes.CHECKCAST, Type.getInternalName(to));
      }
    } else if (!from.isPrimitive()) {
      Class<?> box = MethodType.methodType(to).wrap().returnType();
      mv.visitTypeInsn(Opcodes.CHECKCAST, Type.getInternalName(box));
      mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, Type.getInternalName(box), to.getName() + "Value",
          "()" + Type.getDescriptor(to), false);
    } else if (!to.isPrimitive()) {
      Class<?> box = MethodType.methodType(from).wrap().returnType();
      mv.visitMethodInsn(Opcodes.INVOKESTATIC, Type.getInternalName(box), "valueOf",
          "(" + Type.getDescriptor(from) + ")" + Type.getDescriptor(box), false);
      if (!to.isAssignableFrom(box)) {
        mv.visitTypeInsn(Opcodes.CHECKCAST, Type.getInternalName(to));
      }
    } else {
      throw new LambdaConversionException("a primitive conversion from " + from + " to " + to);
    }
  }

  /**
   * JavaFlow's rewrite of the class. The engine decides a call site by the callee's mark, so it
   * reads the body's class as a stub with the body marked {@code @continuable}.
   */
  private static byte[] rewrite(ClassLoader loader, String name, byte[] plain, MethodHandleInfo info)
      throws LambdaConversionException {
    String bodyOwner = Type.getInternalName(info.getDeclaringClass());
    ResourceLoader view = new ResourceLoader() {
      @Override
      public boolean hasResource(String resource) {
        return resource.equals(name + ".class") || resource.equals(bodyOwner + ".class") || source(resource) != null;
      }

      @Override
      public InputStream getResourceAsStream(String resource) throws IOException {
        if (resource.equals(name + ".class")) {
          return new ByteArrayInputStream(plain);
        }
        if (resource.equals(bodyOwner + ".class")) {
          return new ByteArrayInputStream(stub(info));
        }
        InputStream in = source(resource);
        if (in == null) {
          throw new IOException("no resource " + resource);
        }
        return in;
      }

      private InputStream source(String resource) {
        return loader == null ? ClassLoader.getSystemResourceAsStream(resource) : loader.getResourceAsStream(resource);
      }
    };
    ResourceTransformer transformer = new ContinuableClassTransformationFactory().createTransformer(view);
    byte[] out;
    try {
      out = transformer.transform(plain, name);
    } catch (RuntimeException e) {
      LambdaConversionException failed = new LambdaConversionException("JavaFlow cannot rewrite the class for " + info);
      failed.initCause(e);
      throw failed;
    } finally {
      transformer.release();
    }
    if (out == null) {
      throw new LambdaConversionException("JavaFlow left the class for " + info + " as it was");
    }
    return marked(out, plain);
  }

  /**
   * The body's class as the engine must see it: only its type, and the body marked
   * {@code @continuable}. Read from the class path it may be the class as compiled, without the
   * bridge the rewrite added or the mark.
   */
  private static byte[] stub(MethodHandleInfo info) {
    Class<?> owner = info.getDeclaringClass();
    ClassWriter cw = new ClassWriter(0);
    String[] itfs = new String[owner.getInterfaces().length];
    for (int i = 0; i < itfs.length; i++) {
      itfs[i] = Type.getInternalName(owner.getInterfaces()[i]);
    }
    Class<?> sup = owner.getSuperclass();
    int access = Opcodes.ACC_PUBLIC | (owner.isInterface() ? Opcodes.ACC_INTERFACE | Opcodes.ACC_ABSTRACT : Opcodes.ACC_SUPER);
    cw.visit(Opcodes.V17, access, Type.getInternalName(owner), null,
        sup == null ? "java/lang/Object" : Type.getInternalName(sup), itfs);
    int methodAccess = Opcodes.ACC_PUBLIC | Opcodes.ACC_ABSTRACT
        | (info.getReferenceKind() == MethodHandleInfo.REF_invokeStatic ? Opcodes.ACC_STATIC : 0);
    if ((methodAccess & Opcodes.ACC_STATIC) != 0) {
      methodAccess &= ~Opcodes.ACC_ABSTRACT;
    }
    MethodVisitor mv = cw.visitMethod(methodAccess, info.getName(), info.getMethodType().toMethodDescriptorString(),
        null, null);
    mv.visitAnnotation(CONTINUABLE, false).visitEnd();
    if ((methodAccess & Opcodes.ACC_ABSTRACT) == 0) {
      mv.visitCode();
      mv.visitInsn(Opcodes.ACONST_NULL);
      mv.visitInsn(Opcodes.ATHROW);
      mv.visitMaxs(1, Type.getArgumentsAndReturnSizes(info.getMethodType().toMethodDescriptorString()) >> 2);
    }
    mv.visitEnd();
    cw.visitEnd();
    return cw.toByteArray();
  }

  /** Weft's {@code Rewritten} mark, so the run-time checks know the class's method is rewritten. */
  private static byte[] marked(byte[] bytes, byte[] plain) {
    String[] sam = new String[1];
    new ClassReader(plain).accept(new ClassVisitor(Opcodes.ASM9) {
      @Override
      public MethodVisitor visitMethod(int access, String n, String d, String sig, String[] ex) {
        if (!n.equals("<init>")) {
          sam[0] = n + d;
        }
        return null;
      }
    }, ClassReader.SKIP_CODE);
    return ClassRewriter.addMarker(bytes, Set.of(sam[0]), List.of());
  }
}
