package io.weft.continuations;

import io.weft.continuations.internal.CheckedTransport;
import io.weft.continuations.internal.Guard;
import io.weft.continuations.internal.RewrittenMethods;
import io.weft.continuations.internal.SessionFrame;
import io.weft.continuations.internal.SuspendableAnalysis;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.apache.commons.javaflow.providers.core.ContinuableClassTransformationFactory;
import org.apache.commons.javaflow.spi.ResourceLoader;
import org.apache.commons.javaflow.spi.ResourceTransformer;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads client and protocol classes so that they can suspend, with no annotations in their
 * source.
 *
 * <p>On construction it scans every class under the given packages on the parent's class path
 * (directories and jars) with ASM and works out which methods can suspend (see
 * {@link #report()}); it marks those with the engine's {@code @continuable} annotation, marks
 * the waiting methods of {@code Transport}, {@code Connector.connect} and
 * {@code SessionTask.run} the same way in the bytes the engine reads, and lets Tascalate
 * JavaFlow's transformer rewrite the marked methods. Classes under those packages are defined
 * here, child-first; everything else (the JDK, JavaFlow's API, the Transport API, Weft's
 * runtime, libraries) comes from the parent, unchanged: a second copy of JavaFlow's API in here
 * would break every session.
 *
 * <p>Objects of in-scope classes made by this loader are not instances of the parent's classes
 * of the same name; pass JDK types across.
 */
public final class ContinuationClassLoader extends ClassLoader implements RewrittenMethods.Record {
  private static final Logger log = LoggerFactory.getLogger(ContinuationClassLoader.class);
  /** Weft's own packages: never rewritten, but a user's subpackage of them may be. */
  private static final List<String> WEFT_RUNTIME = List.of(
      "io.weft.transport.", "io.weft.transport.internal.",
      "io.weft.continuations.", "io.weft.continuations.internal.");
  /** Libraries the runtime shares with the rewritten code: not a class of them may be copied. */
  private static final List<String> SHARED_RUNTIME = List.of(
      "org.apache.commons.javaflow.", "net.tascalate.", "org.objectweb.asm.", "org.slf4j.",
      "java.", "javax.", "jdk.", "sun.", "com.sun.");
  private static final String FRAME = SessionFrame.class.getName().replace('.', '/');
  private static final String CHECKED = CheckedTransport.class.getName().replace('.', '/');

  static {
    registerAsParallelCapable();
  }

  private final List<String> prefixes;
  private final SuspendableAnalysis analysis;
  private final Map<String, Set<String>> marks;
  private final Set<String> childFirst = new HashSet<>();
  private final Map<String, Set<String>> rewritten = new ConcurrentHashMap<>();
  private final ResourceLoader engineView = new EngineView();
  private final ResourceTransformer transformer;
  private final Object transformLock = new Object();
  private final InstrumentationReport report;

  /**
   * @param parent where everything comes from; the in-scope classes are read from it as bytes
   * @param packages package names whose classes (and subpackages' classes) are rewritten, e.g.
   *     {@code "com.example.client"}
   * @throws IllegalArgumentException if a package would take in Weft's runtime, JavaFlow or the
   *     JDK
   */
  public ContinuationClassLoader(ClassLoader parent, Collection<String> packages) {
    super("weft-continuations", parent);
    List<String> list = new ArrayList<>();
    for (String p : packages) {
      String prefix = p.endsWith(".") ? p : p + ".";
      for (String runtime : WEFT_RUNTIME) {
        if (runtime.startsWith(prefix) || prefix.startsWith(runtime + "internal.")) {
          throw new IllegalArgumentException("package " + p + " covers " + runtime
              + "*, which must be loaded unchanged from the parent; name your own packages only");
        }
      }
      for (String runtime : SHARED_RUNTIME) {
        if (runtime.startsWith(prefix) || prefix.startsWith(runtime)) {
          throw new IllegalArgumentException("package " + p + " covers " + runtime
              + "*, which must be loaded unchanged from the parent; name your own packages only");
        }
      }
      list.add(prefix);
    }
    if (list.isEmpty()) {
      throw new IllegalArgumentException("no packages to instrument");
    }
    this.prefixes = List.copyOf(list);
    Set<String> names = new HashSet<>();
    for (String prefix : prefixes) {
      names.addAll(scan(parent, prefix.replace('.', '/')));
    }
    this.analysis = new SuspendableAnalysis(this::parentBytes, names);
    this.marks = new HashMap<>(analysis.marks());
    this.marks.put(FRAME, Set.of("run()V"));
    this.marks.put(CHECKED, analysis.transportWaits(CHECKED));
    childFirst.addAll(analysis.classes());
    childFirst.add(FRAME);
    childFirst.add(CHECKED);
    this.report = new InstrumentationReport(
        analysis.suspendableMethods(), analysis.problems(), analysis.warnings());
    for (InstrumentationReport.Problem problem : report.problems()) {
      log.warn("cannot run as a continuation: {}", problem);
    }
    for (String warning : report.warnings()) {
      log.info("{}", warning);
    }
    this.transformer = new ContinuableClassTransformationFactory().createTransformer(engineView);
  }

  /** What the scan found: suspendable methods, problems, warnings. */
  public InstrumentationReport report() {
    return report;
  }

  /** The packages this loader rewrites, each ending with a dot. */
  public List<String> packages() {
    return prefixes;
  }

  /**
   * The problems that stand in the way of running {@code className} as a continuation: those in
   * the classes it can reach.
   */
  public List<InstrumentationReport.Problem> problemsFor(String className) {
    return analysis.problemsReachableFrom(className.replace('.', '/'));
  }

  /** True if {@code className} is defined and rewritten here rather than by the parent. */
  public boolean isInstrumented(String className) {
    return childFirst.contains(className.replace('.', '/'));
  }

  @Override
  public Set<String> rewrittenMethods(String className) {
    return rewritten.get(className);
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    String internal = name.replace('.', '/');
    if (!childFirst.contains(internal) && !(inPrefixes(name) && getParent().getResource(internal + ".class") != null)) {
      return super.loadClass(name, resolve);
    }
    synchronized (getClassLoadingLock(name)) {
      Class<?> c = findLoadedClass(name);
      if (c == null) {
        c = define(name, internal);
      }
      if (resolve) {
        resolveClass(c);
      }
      return c;
    }
  }

  private boolean inPrefixes(String name) {
    for (String prefix : prefixes) {
      if (name.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  private Class<?> define(String name, String internal) throws ClassNotFoundException {
    byte[] marked = markedBytes(internal);
    if (marked == null) {
      throw new ClassNotFoundException(name);
    }
    byte[] bytes;
    synchronized (transformLock) {
      byte[] out;
      try {
        out = transformer.transform(marked, internal);
      } catch (RuntimeException e) {
        throw new ClassNotFoundException(name + ": the JavaFlow transformer failed: " + e, e);
      }
      bytes = out == null ? marked : out;
    }
    rewritten.put(name, out(bytes));
    return defineClass(name, bytes, 0, bytes.length);
  }

  private static Set<String> out(byte[] bytes) {
    return RewrittenMethods.scan(bytes);
  }

  /** The class as the engine must see it: with {@code @continuable} on the suspendable methods. */
  private byte[] markedBytes(String internal) {
    byte[] original = parentBytes(internal);
    if (original == null) {
      return null;
    }
    Set<String> toMark = marks.get(internal);
    if (toMark == null || toMark.isEmpty()) {
      return original;
    }
    ClassReader reader = new ClassReader(original);
    ClassWriter writer = new ClassWriter(reader, 0);
    reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
      @Override
      public MethodVisitor visitMethod(int access, String mname, String desc, String sig, String[] ex) {
        MethodVisitor mv = super.visitMethod(access, mname, desc, sig, ex);
        if (!toMark.contains(mname + desc)) {
          return mv;
        }
        mv.visitAnnotation(SuspendableAnalysis.CONTINUABLE, false).visitEnd();
        boolean guard = !internal.equals(FRAME) && inPrefixes(internal.replace('/', '.'))
            && (access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) == 0;
        // Wrapped so ASM cannot copy the method's original bytes over the added annotation.
        return new MethodVisitor(Opcodes.ASM9, mv) {
          @Override
          public void visitCode() {
            super.visitCode();
            if (guard) {
              // The cheap run-time check: entering a rewritten method while capturing means a
              // frame that was not rewritten swallowed a suspend. The engine's restore jump is
              // put in front of this, so restoring skips it.
              super.visitMethodInsn(Opcodes.INVOKESTATIC, Guard.INTERNAL_NAME, "onEntry", "()V", false);
            }
          }
        };
      }
    }, 0);
    return writer.toByteArray();
  }

  private byte[] parentBytes(String internal) {
    try (InputStream in = getParent().getResourceAsStream(internal + ".class")) {
      return in == null ? null : in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Internal names of the classes under {@code path} in the parent's directories and jars. */
  private static Set<String> scan(ClassLoader parent, String path) {
    Set<String> names = new HashSet<>();
    try {
      Enumeration<URL> roots = parent.getResources(path);
      while (roots.hasMoreElements()) {
        URL root = roots.nextElement();
        if (root.getProtocol().equals("file")) {
          Path dir = Paths.get(root.toURI());
          Path base = dir;
          for (String ignored : path.split("/")) {
            base = base.getParent();
          }
          try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
              String rel = base.relativize(file).toString().replace('\\', '/');
              if (rel.endsWith(".class") && !rel.endsWith("module-info.class")) {
                names.add(rel.substring(0, rel.length() - 6));
              }
            }
          }
        } else if (root.getProtocol().equals("jar")) {
          JarURLConnection connection = (JarURLConnection) root.openConnection();
          connection.setUseCaches(false);
          try (JarFile jar = connection.getJarFile()) {
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
              String entry = e.nextElement().getName();
              // path ends with '/' for a package prefix ("io.weft.protocols."): don't double it.
              if (entry.startsWith(path.endsWith("/") ? path : path + "/") && entry.endsWith(".class")
                  && !entry.startsWith("META-INF/")) {
                names.add(entry.substring(0, entry.length() - 6));
              }
            }
          }
        } else {
          log.warn("cannot scan {} for classes to instrument; its classes load unchanged", root);
        }
      }
    } catch (IOException | URISyntaxException e) {
      throw new IllegalStateException("cannot scan the class path for " + path + ": " + e, e);
    }
    return names;
  }

  /** The class bytes the engine reads: marked where Weft marks, the parent's otherwise. */
  private final class EngineView implements ResourceLoader {
    @Override
    public boolean hasResource(String name) {
      return getParent().getResource(name) != null;
    }

    @Override
    public InputStream getResourceAsStream(String name) throws IOException {
      if (name.endsWith(".class")) {
        byte[] bytes = markedBytes(name.substring(0, name.length() - 6));
        if (bytes != null) {
          return new ByteArrayInputStream(bytes);
        }
      }
      InputStream in = getParent().getResourceAsStream(name);
      if (in == null) {
        throw new IOException("no resource " + name);
      }
      return in;
    }
  }
}
