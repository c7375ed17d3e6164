package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.transport.spi.InboundBuffer;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Weft's own classes on the heap's end paths make their messages without {@code invokedynamic}
 * string concatenation: a concatenation call site first linked while the heap is full fails
 * with {@code BootstrapMethodError}, and the JVM keeps that failure for the site for good, so a
 * run aborted for want of heap could throw it instead of its {@code RunAbortedException}, and so
 * could every later run that meets the same site (seen: NoRoomToSayTest's child on JDK 25,
 * "run: java.lang.BootstrapMethodError: bootstrap method initialization exception"). The build
 * compiles main sources with {@code -XDstringConcat=inline}; this reads the compiled classes of
 * the runtime (this module) and of transport-api.
 */
class NoConcatCallSitesTest {
  @Test
  void theRuntimeAndTransportApiHaveNoConcatenationCallSites() throws Exception {
    List<String> found = new ArrayList<>();
    int classes = 0;
    for (Class<?> of : new Class<?>[] {SessionRunner.class, InboundBuffer.class}) {
      Path where = Path.of(of.getProtectionDomain().getCodeSource().getLocation().toURI());
      for (byte[] bytes : classFiles(where)) {
        classes++;
        found.addAll(callSites(bytes, true));
      }
    }
    assertTrue(classes > 50, "read " + classes + " classes");
    assertEquals(List.of(), found, "invokedynamic string concatenation in Weft's main classes");
  }

  /**
   * RunControl, AbortCancels and SessionCancels, which an aborted run's threads run in a full heap
   * (the abort, the waits, the canceller's passes and its spare), have no {@code invokedynamic} call site of any
   * kind: a lambda or method reference is one too, linked the first time it runs, and fails the
   * same way.
   */
  @Test
  void theAbortPathsRunControlHasNoCallSitesAtAll() throws Exception {
    Path where = Path.of(RunControl.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<String> found = new ArrayList<>();
    int classes = 0;
    for (byte[] bytes : classFiles(where)) {
      String name = new ClassReader(bytes).getClassName();
      if (name.equals("io/weft/continuations/RunControl") || name.startsWith("io/weft/continuations/RunControl$")
          || name.equals("io/weft/continuations/AbortCancels")
          || name.startsWith("io/weft/continuations/AbortCancels$")
          || name.equals("io/weft/continuations/internal/runtime/SessionCancels")) {
        classes++;
        found.addAll(callSites(bytes, false));
      }
    }
    assertTrue(classes >= 4, "read " + classes + " RunControl, AbortCancels and SessionCancels classes");
    assertEquals(List.of(), found, "invokedynamic in RunControl, AbortCancels or SessionCancels");
  }

  private static List<byte[]> classFiles(Path where) throws IOException, URISyntaxException {
    List<byte[]> all = new ArrayList<>();
    if (Files.isDirectory(where)) {
      try (Stream<Path> files = Files.walk(where)) {
        for (Path p : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
          all.add(Files.readAllBytes(p));
        }
      }
    } else {
      try (JarFile jar = new JarFile(where.toFile())) {
        for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
          JarEntry entry = e.nextElement();
          if (entry.getName().endsWith(".class")) {
            try (InputStream in = jar.getInputStream(entry)) {
              all.add(in.readAllBytes());
            }
          }
        }
      }
    }
    return all;
  }

  /** The invokedynamic sites of a class: string concatenation only, or all of them. */
  private static List<String> callSites(byte[] bytes, boolean concatOnly) {
    List<String> sites = new ArrayList<>();
    ClassReader reader = new ClassReader(bytes);
    reader.accept(new ClassVisitor(Opcodes.ASM9) {
      @Override
      public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
          String[] exceptions) {
        return new MethodVisitor(Opcodes.ASM9) {
          @Override
          public void visitInvokeDynamicInsn(String indyName, String indyDescriptor, Handle bootstrap,
              Object... arguments) {
            if (!concatOnly || bootstrap.getOwner().equals("java/lang/invoke/StringConcatFactory")) {
              sites.add(reader.getClassName() + "." + name);
            }
          }
        };
      }
    }, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
    return sites;
  }
}
