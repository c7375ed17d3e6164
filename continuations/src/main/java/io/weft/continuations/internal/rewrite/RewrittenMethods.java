package io.weft.continuations.internal.rewrite;

import java.io.IOException;
import java.io.InputStream;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.Function;
import org.apache.commons.javaflow.core.Skip;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Which methods of a class the JavaFlow engine rewrote: those whose code reads the engine's
 * {@code StackRecorder.isRestoring}, which every rewritten method does on entry. Read from the
 * instrumenting class loader's record, from the {@link Rewritten} mark Weft's rewrite leaves on
 * a class (build tool, agent), or from the class file of a class JavaFlow's own build step
 * rewrote; so it tells what really runs, whoever did the rewriting.
 */
public final class RewrittenMethods {
  private static final String RECORDER = "org/apache/commons/javaflow/core/StackRecorder";

  /**
   * The records of the class loaders that keep their own record of what they rewrote: for each,
   * class name to method names + descriptors rewritten (null if not defined there). Weak keys, and
   * a record that does not refer to its loader, so a loader no longer used is collected.
   */
  private static final Map<ClassLoader, Function<String, Set<String>>> RECORDS =
      Collections.synchronizedMap(new WeakHashMap<>());

  private static final ClassValue<Set<String>> CACHE = new ClassValue<>() {
    @Override
    protected Set<String> computeValue(Class<?> type) {
      ClassLoader loader = type.getClassLoader();
      Function<String, Set<String>> record = loader == null ? null : RECORDS.get(loader);
      if (record != null) {
        Set<String> own = record.apply(type.getName());
        if (own != null) {
          return own;
        }
      }
      Rewritten marker = type.getAnnotation(Rewritten.class);
      if (marker != null) {
        // Rewritten by Weft (build tool or agent): the record travels with the class, so it
        // holds even when the class file on the class path is the original (agent).
        return Set.of(marker.methods());
      }
      if (loader == null || type.isHidden() || !type.isAnnotationPresent(Skip.class)) {
        return Set.of();
      }
      String resource = type.getName().replace('.', '/') + ".class";
      try (InputStream in = loader.getResourceAsStream(resource)) {
        return in == null ? Set.of() : scan(in.readAllBytes());
      } catch (IOException e) {
        return Set.of();
      }
    }
  };

  private RewrittenMethods() {}

  /**
   * Keeps {@code record} as what {@code loader} rewrote, read before any mark or class file.
   *
   * @param loader a loader that defines rewritten classes itself
   * @param record class name to the method names + descriptors rewritten there, or null if the
   *     class is not defined by {@code loader}; must not refer to {@code loader}
   */
  public static void keepRecord(ClassLoader loader, Function<String, Set<String>> record) {
    RECORDS.put(loader, record);
  }

  /** True if {@code loader} keeps its own record of what it rewrote ({@link #keepRecord}). */
  public static boolean keepsRecord(ClassLoader loader) {
    return RECORDS.containsKey(loader);
  }

  /** True if {@code method + descriptor} of {@code type} was rewritten to suspend. */
  public static boolean isRewritten(Class<?> type, String method, String descriptor) {
    return CACHE.get(type).contains(method + descriptor);
  }

  /** How many methods of {@code type} were rewritten to suspend. */
  public static int rewrittenCount(Class<?> type) {
    return CACHE.get(type).size();
  }

  /** The methods in {@code classBytes} that the engine rewrote. */
  public static Set<String> scan(byte[] classBytes) {
    Set<String> found = new HashSet<>();
    new ClassReader(classBytes).accept(new ClassVisitor(Opcodes.ASM9) {
      @Override
      public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] ex) {
        String key = name + desc;
        return new MethodVisitor(Opcodes.ASM9) {
          @Override
          public void visitFieldInsn(int op, String owner, String n, String d) {
            // Every rewritten method checks on entry whether it is being restored; source code
            // that merely uses the recorder (the fiber, the bottom frame) does not read this.
            if (RECORDER.equals(owner) && n.equals("isRestoring")) {
              found.add(key);
            }
          }
        };
      }
    }, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
    return Set.copyOf(found);
  }
}
