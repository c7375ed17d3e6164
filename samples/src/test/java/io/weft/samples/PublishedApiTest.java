package io.weft.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * The published javadoc leaves out every package called {@code internal}: so no type a user sees
 * (public, in a published module, outside such a package) may extend one, implement one, or name
 * one in a member a user can reach (public or protected, its own or inherited from a superclass
 * that is not public). Read from the compiled classes of every published module, with ASM.
 */
class PublishedApiTest {
  private static final String INTERNAL = "/internal/";

  @Test
  void noPublishedTypeNamesAnInternalType() throws Exception {
    Map<String, ClassInfo> classes = new HashMap<>();
    for (Map.Entry<String, Path> module : BomTest.publishedModules().entrySet()) {
      Path dir = module.getValue().resolve("target/classes");
      assertTrue(Files.isDirectory(dir), "not compiled: " + dir);
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
          ClassInfo info = ClassInfo.read(file);
          classes.put(info.name, info);
        }
      }
    }
    assertTrue(classes.containsKey("io/weft/continuations/ContinuationClassLoader"), "scanned the modules");

    List<String> leaks = new ArrayList<>();
    for (ClassInfo type : classes.values()) {
      if (!type.seenByUsers(classes)) {
        continue;
      }
      type.leaks(type.name, leaks, true);
      // Members of a superclass that is not public are documented as the public class's own.
      for (ClassInfo up = classes.get(type.superName); up != null && !up.isPublic; up = classes.get(up.superName)) {
        up.leaks(type.name + " (inherited from " + up.name + ")", leaks, false);
      }
    }
    assertEquals(List.of(), leaks.stream().sorted().toList(),
        "published types naming a type of an internal package (which the published javadoc leaves out)");
  }

  /** What this test needs of one class file. */
  private static final class ClassInfo extends ClassVisitor {
    String name;
    String superName;
    boolean isPublic;
    /** The enclosing class, for a member class; null for a top-level one. */
    String outer;
    private final List<String> typeRefs = new ArrayList<>();
    private final Map<String, List<String>> memberRefs = new HashMap<>();

    private ClassInfo() {
      super(Opcodes.ASM9);
    }

    static ClassInfo read(Path file) throws IOException {
      ClassInfo info = new ClassInfo();
      try (InputStream in = Files.newInputStream(file)) {
        new ClassReader(in).accept(info, ClassReader.SKIP_CODE | ClassReader.SKIP_FRAMES);
      }
      return info;
    }

    @Override
    public void visit(int version, int access, String name, String signature, String superName,
        String[] interfaces) {
      this.name = name;
      this.superName = superName;
      this.isPublic = (access & Opcodes.ACC_PUBLIC) != 0;
      typeRefs.add(signature != null ? signature : superName + " " + String.join(" ", interfaces));
    }

    @Override
    public void visitInnerClass(String name, String outerName, String innerName, int access) {
      if (name.equals(this.name)) {
        outer = outerName;
        // A member class's own flags are in the InnerClasses attribute, not the class header.
        isPublic = (access & (Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED)) != 0 && outerName != null;
      }
    }

    @Override
    public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
      if (reachable(access)) {
        memberRefs.put("field " + name, List.of(signature != null ? signature : descriptor));
      }
      return null;
    }

    @Override
    public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
        String[] exceptions) {
      if (reachable(access) && (access & Opcodes.ACC_SYNTHETIC) == 0) {
        List<String> refs = new ArrayList<>();
        refs.add(signature != null ? signature : descriptor);
        if (exceptions != null) {
          refs.addAll(List.of(exceptions));
        }
        memberRefs.put("method " + name + descriptor, refs);
      }
      return null;
    }

    private static boolean reachable(int access) {
      return (access & (Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED)) != 0;
    }

    /** Public, outside an internal package, and (for a member class) inside such a type too. */
    boolean seenByUsers(Map<String, ClassInfo> classes) {
      if (!isPublic || name.contains(INTERNAL) || name.endsWith("/package-info") || name.endsWith("/module-info")) {
        return false;
      }
      ClassInfo enclosing = outer == null ? null : classes.get(outer);
      return outer == null || (enclosing != null && enclosing.seenByUsers(classes));
    }

    void leaks(String shownAs, List<String> out, boolean withHeader) {
      if (withHeader) {
        for (String ref : typeRefs) {
          if (ref.contains(INTERNAL)) {
            out.add(shownAs + " extends or implements: " + ref);
          }
        }
      }
      memberRefs.forEach((member, refs) -> {
        for (String ref : refs) {
          if (ref.contains(INTERNAL)) {
            out.add(shownAs + " " + member + ": " + ref);
          }
        }
      });
    }
  }
}
