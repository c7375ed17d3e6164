package io.weft.continuations.internal.rewrite;

import io.weft.continuations.internal.runtime.Guard;
import io.weft.continuations.InstrumentationReport.Problem;
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
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.apache.commons.javaflow.providers.core.ContinuableClassTransformationFactory;
import org.apache.commons.javaflow.spi.ResourceLoader;
import org.apache.commons.javaflow.spi.ResourceTransformer;
import org.objectweb.asm.AnnotationVisitor;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one rewrite step behind every way of rewriting (the {@code ContinuationClassLoader} at
 * load time, the {@code Rewrite} tool at build time, the {@code Agent} at class-load time):
 * given what {@link SuspendableAnalysis} worked out, add {@code @continuable} to the methods
 * that can suspend (and {@link Guard#onEntry()} in front of their code, {@link Guard#onReturn()}
 * in front of each of their returns), turn the monitors held across a suspend into session
 * monitors ({@link SessionMonitorPass}), point the lambdas that can suspend at a factory of
 * rewritten classes ({@link LambdaBridges}) and mark the calls that reach them through a JDK
 * interface for the engine ({@link InterfaceCallSites}), let Tascalate
 * JavaFlow's transformer rewrite them, add the swallowed-suspend check of each restored call
 * ({@link ResumeChecks}: at the caller's capture where this JVM can read JavaFlow's reference
 * stack, else in the restore code), and mark the result {@link Rewritten}, saying which.
 *
 * <p>The engine reads every class it reasons about through this rewriter, as marked bytes: so
 * {@code Transport}'s waiting methods look {@code @continuable} to it, and calls through that
 * interface are rewritten, though {@code Transport} itself is never changed. A class that
 * already carries {@link Rewritten} is left as it is. One instance per class loader (the engine
 * caches what it reads); {@link #rewrite} is thread-safe.
 */
public final class ClassRewriter {
  private static final Logger log = LoggerFactory.getLogger(ClassRewriter.class);
  /** Descriptor of {@link Rewritten}. */
  public static final String MARKER = "Lio/weft/continuations/internal/rewrite/Rewritten;";
  private static final String JAVAFLOW_SKIP = "Lorg/apache/commons/javaflow/core/Skip;";
  static final String FRAME = "io/weft/continuations/internal/runtime/SessionFrame";
  /** The package of transport-api's binary helpers, rewritten along with every client. */
  static final String BINARY_HELPERS = "io.weft.transport.binary.";
  static final String CHECKED = "io/weft/continuations/internal/runtime/CheckedTransport";
  private final List<String> prefixes;
  private final SuspendableAnalysis analysis;
  private final Map<String, Set<MethodRef>> marks = new HashMap<>();
  /** Calls through a type that is not rewritten that can reach a suspending lambda. */
  private final Set<MethodRef> outsideCalls;
  /** Virtual and interface calls that can suspend and reach an override the analysis did not see. */
  private final Set<MethodRef> checkedCalls;
  private final Set<String> changed = java.util.concurrent.ConcurrentHashMap.newKeySet();
  /** Set by {@link #splitLoaders}: the classes that reach the parent's through accessors. */
  private volatile Set<String> accessing = Set.of();
  private volatile CrossLoaderAccess.Needs accessNeeds;
  private final ClassLoader source;
  private final ResourceTransformer transformer;
  private final Object transformLock = new Object();

  /**
   * @param prefixes the packages being rewritten, as {@link #prefixes} returns them
   * @param analysis what can suspend among the classes under those packages
   * @param extraMarks further methods to mark (Weft's own frames)
   * @param source where every class is read from, as bytes
   */
  public ClassRewriter(List<String> prefixes, SuspendableAnalysis analysis, Set<MethodRef> extraMarks,
      ClassLoader source) {
    this.prefixes = List.copyOf(prefixes);
    this.analysis = analysis;
    for (Set<MethodRef> some : List.of(analysis.marks(), extraMarks)) {
      for (MethodRef m : some) {
        marks.computeIfAbsent(m.owner(), k -> new HashSet<>()).add(m);
      }
    }
    changed.addAll(marks.keySet());
    changed.addAll(analysis.changedClasses());
    this.outsideCalls = analysis.callsThroughOutsideTypes();
    this.checkedCalls = analysis.callsCheckedOnResume();
    this.source = source;
    this.transformer = new ContinuableClassTransformationFactory().createTransformer(new EngineView());
  }

  /**
   * Scans {@code packages} on {@code source}'s class path (directories and jars) and analyses
   * them: what the loader and the agent do.
   */
  public static ClassRewriter over(ClassLoader source, List<String> prefixes, Set<MethodRef> extraMarks) {
    return over(source, prefixes, extraMarks, RewriteRules.DEFAULT);
  }

  /** As {@link #over(ClassLoader, List, Set)}, with further redirects and load-time checks. */
  public static ClassRewriter over(ClassLoader source, List<String> prefixes, Set<MethodRef> extraMarks,
      RewriteRules rules) {
    Set<String> names = new HashSet<>();
    for (String prefix : prefixes) {
      names.addAll(scan(source, prefix.replace('.', '/')));
    }
    // Weft's binary helpers read through the transport from static methods that a client calls
    // on its suspend path, so they are rewritten with every client, unasked.
    names.addAll(scan(source, BINARY_HELPERS.replace('.', '/')));
    SuspendableAnalysis analysis = new SuspendableAnalysis(internal -> bytes(source, internal), names, rules);
    return new ClassRewriter(prefixes, analysis, extraMarks, source);
  }

  /**
   * Weft's own frames on every suspend path, which each instrumenting loader defines and rewrites
   * for itself: the session's bottom frame and the checked transport the task sees. For
   * {@code extraMarks}.
   */
  public static Set<MethodRef> weftFrames(ClassLoader source) {
    SuspendableAnalysis none = new SuspendableAnalysis(internal -> bytes(source, internal), Set.of());
    Set<MethodRef> frames = new HashSet<>(none.transportWaits(CHECKED));
    frames.add(MethodRef.of(FRAME, "run", "()V"));
    return frames;
  }

  /**
   * The package names as prefixes, each ending with a dot.
   *
   * @throws IllegalArgumentException if there are none, or one would take in Weft's runtime,
   *     JavaFlow or the JDK
   */
  public static List<String> prefixes(Collection<String> packages) {
    List<String> list = new ArrayList<>();
    for (String p : packages) {
      String prefix = p.endsWith(".") ? p : p + ".";
      String slashed = prefix.replace('.', '/');
      for (String weft : Packages.WEFT) {
        if (weft.startsWith(slashed) || slashed.startsWith(weft + "internal/")) {
          throw covers(p, weft);
        }
      }
      for (List<String> shared : List.of(Packages.LIBRARIES, Packages.JDK)) {
        for (String library : shared) {
          if (library.startsWith(slashed) || slashed.startsWith(library)) {
            throw covers(p, library);
          }
        }
      }
      list.add(prefix);
    }
    if (list.isEmpty()) {
      throw new IllegalArgumentException("no packages to instrument");
    }
    return List.copyOf(list);
  }
  private static IllegalArgumentException covers(String pkg, String runtime) {
    return new IllegalArgumentException("package " + pkg + " covers " + runtime.replace('/', '.')
        + "*, which must be loaded unchanged from the parent; name your own packages only");
  }


  /**
   * For an instrumenting loader that defines {@code child} itself and leaves the other in-scope
   * classes to its parent: those of {@code child} that use a member that is not public of such a
   * class get the accessor pass ({@link CrossLoaderAccess}). Call before the first rewrite.
   */
  public void splitLoaders(Set<String> child) {
    Set<String> copy = Set.copyOf(child);
    Set<String> needing = analysis.needingAccessors(copy);
    accessNeeds = analysis.accessorNeeds(copy);
    accessing = needing;
    changed.addAll(needing);
  }

  public SuspendableAnalysis analysis() {
    return analysis;
  }

  public List<String> packages() {
    return prefixes;
  }

  /**
   * True if {@code internal} (a class's internal name) is one of transport-api's binary helpers,
   * which are rewritten with every set of packages.
   */
  public static boolean isBinaryHelper(String internal) {
    String path = BINARY_HELPERS.replace('.', '/');
    return internal.startsWith(path) && internal.indexOf('/', path.length()) < 0;
  }

  /** Internal names of transport-api's binary helpers on {@code source}'s class path. */
  public static Set<String> binaryHelpers(ClassLoader source) {
    Set<String> helpers = new TreeSet<>();
    for (String name : scan(source, BINARY_HELPERS.replace('.', '/'))) {
      if (isBinaryHelper(name) && !name.endsWith("/package-info")) {
        helpers.add(name);
      }
    }
    return helpers;
  }

  /** True if {@code internal} (a class's internal name) is under the rewritten packages. */
  public boolean inPrefixes(String internal) {
    String name = internal.replace('/', '.');
    if (isBinaryHelper(internal)) {
      return true;
    }
    for (String prefix : prefixes) {
      if (name.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  /**
   * True if the rewrite changes {@code internal}: the analysis marked some of its methods, or a
   * call in it is redirected.
   */
  public boolean changes(String internal) {
    return changed.contains(internal);
  }

  /** The result of {@link #rewrite}. */
  public record Result(byte[] bytes, Set<String> rewrittenMethods, boolean changed, boolean alreadyRewritten) {}

  /**
   * The class as it must be defined.
   *
   * @param internal its internal name
   * @param original its bytes as compiled
   * @return the bytes to define (the original ones when there is nothing to rewrite or the
   *     class already carries {@link Rewritten}), and which methods run rewritten
   * @throws RuntimeException if JavaFlow's transformer fails
   */
  public Result rewrite(String internal, byte[] original) {
    if (isMarked(original)) {
      return new Result(original, RewrittenMethods.scan(original), false, true);
    }
    byte[] marked = mark(internal, original);
    if (marked == original) {
      // Nothing to mark, so nothing for the engine to rewrite (it rewrites annotated methods only).
      return new Result(original, RewrittenMethods.scan(original), false, false);
    }
    byte[] out;
    synchronized (transformLock) {
      out = transformer.transform(marked, internal);
    }
    byte[] bytes = out == null ? marked
        : GuardRecorders.apply(inPrefixes(internal) ? ResumeChecks.apply(out, checkedCalls) : out);
    Set<String> methods = RewrittenMethods.scan(bytes);
    if (out == null && !RewrittenMethods.scan(original).isEmpty()) {
      // JavaFlow's own build step rewrote some methods and marked the class @Skip, so the engine
      // left the ones Weft marked as compiled; defined like this, the first resume through one
      // would corrupt the session.
      Set<String> left = new TreeSet<>(concrete(original, marks.getOrDefault(internal, Set.of())));
      left.removeAll(methods);
      if (!left.isEmpty()) {
        throw new IllegalStateException(internal.replace('/', '.') + ": JavaFlow's own build step processed"
            + " this class already (it carries @Skip), so " + left + " cannot be rewritten; give Weft the"
            + " classes as compiled");
      }
    }
    return new Result(addMarker(bytes, methods, analysis.problemsReachableFrom(internal)), methods, true, false);
  }

  /**
   * Reads class {@code name} from {@code source} (as a resource) and rewrites it, for a class
   * loader about to define it.
   *
   * @throws ClassNotFoundException if {@code source} has no such class file, or JavaFlow's
   *     transformer fails on it (the message says which)
   */
  public Result rewriteFrom(ClassLoader source, String name) throws ClassNotFoundException {
    String internal = name.replace('.', '/');
    byte[] original = bytes(source, internal);
    if (original == null) {
      throw new ClassNotFoundException(name);
    }
    try {
      return rewrite(internal, original);
    } catch (RuntimeException e) {
      throw new ClassNotFoundException(name + ": the JavaFlow transformer failed: " + e, e);
    }
  }

  /** The methods among {@code keys} that have code in {@code classBytes}, as name + descriptor. */
  private static Set<String> concrete(byte[] classBytes, Set<MethodRef> keys) {
    Set<String> out = new HashSet<>();
    new ClassReader(classBytes).accept(new ClassVisitor(Opcodes.ASM9) {
      private String internalName;

      @Override
      public void visit(int version, int access, String name, String sig, String superName, String[] itfs) {
        internalName = name;
      }

      @Override
      public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] ex) {
        if ((access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) == 0
            && keys.contains(MethodRef.of(internalName, name, desc))) {
          out.add(name + desc);
        }
        return null;
      }
    }, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
    return out;
  }

  /** Lets the engine drop what it cached; the rewriter is unusable afterwards. */
  public void release() {
    transformer.release();
  }

  /** True if {@code classBytes} carry Weft's {@link Rewritten} mark. */
  public static boolean isMarked(byte[] classBytes) {
    boolean[] found = {false};
    new ClassReader(classBytes).accept(new ClassVisitor(Opcodes.ASM9) {
      @Override
      public AnnotationVisitor visitAnnotation(String desc, boolean visible) {
        if (MARKER.equals(desc)) {
          found[0] = true;
        }
        return null;
      }
    }, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
    return found[0];
  }

  /** Encodes a problem for {@link Rewritten#problems()}. */
  static String encode(Problem p) {
    return p.className() + "\n" + p.methodName() + "\n" + p.descriptor() + "\n" + p.message();
  }

  /** Decodes {@link Rewritten#problems()}. */
  public static List<Problem> problems(Rewritten marker) {
    List<Problem> out = new ArrayList<>();
    for (String s : marker.problems()) {
      String[] parts = s.split("\n", 4);
      out.add(new Problem(parts[0], parts[1], parts[2], parts.length > 3 ? parts[3] : ""));
    }
    return out;
  }

  /**
   * {@code bytes} with Weft's {@code Rewritten} mark ({@link #MARKER}) naming {@code methods}
   * (name and descriptor each) and the {@code problems} reachable from the class; also for the
   * classes the runtime makes and has rewritten (suspending lambdas).
   */
  public static byte[] addMarker(byte[] bytes, Set<String> methods, List<Problem> problems) {
    ClassReader reader = new ClassReader(bytes);
    ClassWriter writer = new ClassWriter(reader, 0);
    reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
      @Override
      public void visit(int version, int access, String name, String sig, String superName, String[] itfs) {
        super.visit(version, access, name, sig, superName, itfs);
        AnnotationVisitor marker = super.visitAnnotation(MARKER, true);
        AnnotationVisitor list = marker.visitArray("methods");
        for (String m : new TreeSet<>(methods)) {
          list.visit(null, m);
        }
        list.visitEnd();
        AnnotationVisitor found = marker.visitArray("problems");
        for (Problem p : problems) {
          found.visit(null, encode(p));
        }
        found.visitEnd();
        marker.visit("captureChecks", Guard.CHECKS_AT_CAPTURE);
        marker.visitEnd();
      }
    }, 0);
    return writer.toByteArray();
  }

  /**
   * The class as the engine must see it: with {@code @continuable} on the suspendable methods and
   * its calls redirected; the same array when the rewrite does not change it or the class already
   * carries the mark.
   */
  private byte[] mark(String internal, byte[] original) {
    if (!changed.contains(internal) || isMarked(original)) {
      return original;
    }
    byte[] source = accessing.contains(internal) ? CrossLoaderAccess.apply(internal, original, accessNeeds) : original;
    Set<MethodRef> toMark = marks.getOrDefault(internal, Set.of());
    boolean inScope = inPrefixes(internal);
    // Only the in-scope classes were analysed with their calls redirected.
    CallSiteRedirects redirects = inScope ? analysis.rules().redirects() : CallSiteRedirects.NONE;
    // JavaFlow's own build step marks every class it processed @Skip, even one where it rewrote
    // nothing (it rewrites only methods annotated in the source), and the engine then leaves the
    // class alone. With no method rewritten, running the engine again is safe: drop the mark.
    boolean dropSkip = RewrittenMethods.scan(original).isEmpty();
    ClassReader reader = new ClassReader(source);
    ClassWriter writer = new ClassWriter(reader, 0);
    reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
      private boolean frames;
      private LambdaBridges lambdas;

      @Override
      public void visit(int version, int access, String name, String sig, String superName, String[] itfs) {
        frames = (version & 0xFFFF) >= Opcodes.V1_6;
        if (inScope) {
          lambdas = new LambdaBridges(internal, (access & Opcodes.ACC_INTERFACE) != 0, analysis.suspendingLambdas());
        }
        super.visit(version, access, name, sig, superName, itfs);
      }

      @Override
      public void visitEnd() {
        if (lambdas != null) {
          // The bridges call a method reference's target, through dynamic dispatch for most:
          // their calls are prepared as the class's own are.
          lambdas.emit(new ClassVisitor(Opcodes.ASM9, cv) {
            @Override
            public MethodVisitor visitMethod(int access, String mname, String desc, String sig, String[] ex) {
              return InterfaceCallSites.wrap(super.visitMethod(access, mname, desc, sig, ex), access, mname, desc,
                  sig, ex, checkedCalls, outsideCalls);
            }
          });
        }
        super.visitEnd();
      }

      @Override
      public AnnotationVisitor visitAnnotation(String desc, boolean visible) {
        return dropSkip && JAVAFLOW_SKIP.equals(desc) ? null : super.visitAnnotation(desc, visible);
      }

      @Override
      public MethodVisitor visitMethod(int access, String mname, String desc, String sig, String[] ex) {
        boolean marked = toMark.contains(MethodRef.of(internal, mname, desc));
        MethodVisitor mv = super.visitMethod(access, mname, desc, sig, ex);
        if (marked && inScope) {
          mv = InterfaceCallSites.wrap(mv, access, mname, desc, sig, ex, checkedCalls, outsideCalls);
        }
        mv = redirects.apply(mv, analysis::declaring);
        mv = lambdas == null ? mv : lambdas.wrap(mv, MethodRef.of(internal, mname, desc));
        if (!marked) {
          return mv;
        }
        mv.visitAnnotation(SuspendableAnalysis.CONTINUABLE, false).visitEnd();
        boolean guard = !internal.equals(FRAME) && inScope
            && (access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) == 0;
        // Wrapped so ASM cannot copy the method's original bytes over the added annotation.
        MethodVisitor guarded = new MethodVisitor(Opcodes.ASM9, mv) {
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

          @Override
          public void visitInsn(int opcode) {
            if (guard && opcode >= Opcodes.IRETURN && opcode <= Opcodes.RETURN) {
              // The other half: a rewritten method that returns normally while capturing carried
              // on after a call that swallowed the suspend. The engine's own capture returns are
              // added after this and skip it.
              super.visitMethodInsn(Opcodes.INVOKESTATIC, Guard.INTERNAL_NAME, "onReturn", "()V", false);
            }
            super.visitInsn(opcode);
          }
        };
        SessionMonitorPass.Plan plan = analysis.sessionMonitors(MethodRef.of(internal, mname, desc));
        return plan == null ? guarded
            : SessionMonitorPass.apply(guarded, internal, access, mname, desc, sig, ex, plan, frames);
      }
    }, 0);
    return writer.toByteArray();
  }

  /** The bytes of class {@code internal} as {@code loader} finds them, or null. */
  public static byte[] bytes(ClassLoader loader, String internal) {
    try (InputStream in = loader.getResourceAsStream(internal + ".class")) {
      return in == null ? null : in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Internal names of the classes under {@code path} in the loader's directories and jars. */
  private static Set<String> scan(ClassLoader loader, String path) {
    Set<String> names = new HashSet<>();
    try {
      Enumeration<URL> roots = loader.getResources(path);
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

  /** The class bytes the engine reads: marked where Weft marks, the source's otherwise. */
  private final class EngineView implements ResourceLoader {
    @Override
    public boolean hasResource(String name) {
      return source.getResource(name) != null;
    }

    @Override
    public InputStream getResourceAsStream(String name) throws IOException {
      if (name.endsWith(".class")) {
        String internal = name.substring(0, name.length() - 6);
        byte[] bytes = bytes(source, internal);
        if (bytes != null) {
          return new ByteArrayInputStream(mark(internal, bytes));
        }
      }
      InputStream in = source.getResourceAsStream(name);
      if (in == null) {
        throw new IOException("no resource " + name);
      }
      return in;
    }
  }
}
