package io.weft.continuations.internal.runtime;

import io.weft.continuations.internal.rewrite.Packages;
import io.weft.continuations.internal.rewrite.RewrittenMethods;
import java.io.IOException;
import java.io.InputStream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Names, after the fact, the call that swallowed a suspend when the frame that swallowed it has
 * returned: read from the class file of the rewritten method that carried on, it is the last
 * call at or before the line where that method was caught, to a method that runs unrewritten
 * (reflection, a method handle, or a method of a class that was not rewritten). Runs once per
 * failed session, never on the hot path.
 */
final class CallSites {
  private CallSites() {}

  /** {owner class name, method name}, or null when no such call is found. */
  static String[] lastUnrewrittenCall(Class<?> type, String method, String descriptor, int line) {
    ClassLoader loader = type.getClassLoader();
    if (loader == null || line <= 0) {
      return null;
    }
    byte[] bytes;
    try (InputStream in = loader.getResourceAsStream(type.getName().replace('.', '/') + ".class")) {
      if (in == null) {
        return null;
      }
      bytes = in.readAllBytes();
    } catch (IOException e) {
      return null;
    }
    String[][] found = new String[1][];
    new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9) {
      @Override
      public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] ex) {
        if (!name.equals(method) || !desc.equals(descriptor)) {
          return null;
        }
        return new MethodVisitor(Opcodes.ASM9) {
          private int current;

          @Override
          public void visitLineNumber(int number, Label start) {
            current = number;
          }

          @Override
          public void visitMethodInsn(int op, String owner, String name, String desc, boolean itf) {
            if (current <= line && current > 0 && runsUnrewritten(loader, owner, name, desc, itf)) {
              found[0] = new String[] {owner.replace('/', '.'), name};
            }
          }
        };
      }
    }, ClassReader.SKIP_FRAMES);
    return found[0];
  }

  private static boolean runsUnrewritten(ClassLoader loader, String owner, String name, String desc, boolean itf) {
    if (owner.equals("java/lang/reflect/Method") && name.equals("invoke")) {
      return true;
    }
    if (owner.equals("java/lang/invoke/MethodHandle") && name.startsWith("invoke")) {
      return true;
    }
    if (itf || Packages.isJdk(owner) || owner.startsWith("io/weft/continuations/internal/")
        || owner.startsWith("[")) {
      return false;
    }
    try {
      Class<?> target = Class.forName(owner.replace('/', '.'), false, loader);
      return !target.isInterface() && hasNoRewrittenMethod(target);
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** A class with no rewritten method at all: outside every rewritten package. */
  private static boolean hasNoRewrittenMethod(Class<?> target) {
    return RewrittenMethods.rewrittenCount(target) == 0;
  }
}
