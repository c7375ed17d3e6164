package io.weft.continuations.tools;

import io.weft.continuations.InstrumentationReport.Problem;
import io.weft.continuations.internal.rewrite.ClassRewriter;
import io.weft.continuations.internal.rewrite.RewrittenMethods;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * A {@code -javaagent} that rewrites the given packages for continuations as their classes are
 * loaded: the same analysis and rewrite as the {@code ContinuationClassLoader}, for programs
 * that cannot use a custom class loader and would rather not add a build step. Run the classes
 * with {@code SessionRunner.Builder.alreadyRewritten()}.
 *
 * <pre>
 * java -javaagent:continuations-0.1.0.jar=com.example.client,com.example.proto \
 *      -cp app.jar:continuations-0.1.0.jar:&lt;its dependencies&gt; com.example.Main
 * </pre>
 *
 * <p>The argument is a comma-separated list of package names (subpackages included); there must
 * be at least one. The agent class comes from the continuations jar, whose dependencies
 * (JavaFlow's api, spi and providers.core with their asmx jars, ASM, slf4j-api, Weft's
 * transport-api) must be on the class path: the manifest names none of them.
 *
 * <p>The first time a class loader loads a class under the packages, the agent scans that
 * loader's class path for the packages (directories and jars) and analyses them, as the
 * {@code ContinuationClassLoader} does. What cannot suspend is printed on standard error; the
 * classes are still rewritten, and the runner refuses a task that can reach such code. A class
 * the agent fails to rewrite loads unchanged, with a message on standard error; the runner then
 * refuses it as not rewritten. Classes loaded before the agent runs, hidden classes (lambdas)
 * and classes of Weft's own loaders are never touched.
 */
public final class Agent {
  private Agent() {}

  /**
   * Installs the rewriting transformer.
   *
   * @param args comma-separated package names
   * @throws IllegalArgumentException if there are none, or one covers Weft's runtime, JavaFlow
   *     or the JDK (the JVM then refuses to start)
   * @param instrumentation the JVM's instrumentation, to which the rewriting transformer is added
   */
  public static void premain(String args, Instrumentation instrumentation) {
    List<String> packages = new ArrayList<>();
    if (args != null) {
      for (String p : args.split(",")) {
        if (!p.isBlank()) {
          packages.add(p.trim());
        }
      }
    }
    if (packages.isEmpty()) {
      throw new IllegalArgumentException("weft agent: name the packages to rewrite:"
          + " -javaagent:<continuations jar>=com.example.client[,com.example.proto...]");
    }
    List<String> prefixes = ClassRewriter.prefixes(packages);
    instrumentation.addTransformer(new Transformer(prefixes), false);
    System.err.println("weft agent: rewriting " + prefixes + " for continuations as they load");
  }

  /** Rewrites classes under the prefixes; one {@link ClassRewriter} per class loader. */
  private static final class Transformer implements ClassFileTransformer {
    private final List<String> prefixes;
    private final List<String> paths = new ArrayList<>();
    // The rewriter holds its loader, so a loader stays as long as the agent: fine for the
    // application's loaders, which live as long as the JVM.
    private final Map<ClassLoader, ClassRewriter> rewriters = new WeakHashMap<>();

    Transformer(List<String> prefixes) {
      this.prefixes = prefixes;
      for (String prefix : prefixes) {
        paths.add(prefix.replace('.', '/'));
      }
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> redefined,
        ProtectionDomain domain, byte[] bytes) {
      if (loader == null || className == null || redefined != null || !inPrefixes(className)
          || RewrittenMethods.keepsRecord(loader)) {
        // The boot loader, a redefinition, someone else's class, or a Weft loader that rewrites
        // for itself.
        return null;
      }
      try {
        ClassRewriter rewriter = rewriter(loader);
        if (!rewriter.changes(className)) {
          return null;
        }
        ClassRewriter.Result result = rewriter.rewrite(className, bytes);
        return result.changed() ? result.bytes() : null;
      } catch (Throwable t) {
        // The JVM would drop this silently and load the class unchanged.
        System.err.println("weft agent: cannot rewrite " + className.replace('/', '.') + ": " + t
            + "; it loads unchanged, and a runner that is alreadyRewritten() refuses it");
        return null;
      }
    }

    private boolean inPrefixes(String internal) {
      if (ClassRewriter.isBinaryHelper(internal)) {
        return true;
      }
      for (String path : paths) {
        if (internal.startsWith(path)) {
          return true;
        }
      }
      return false;
    }

    private ClassRewriter rewriter(ClassLoader loader) {
      synchronized (rewriters) {
        ClassRewriter rewriter = rewriters.get(loader);
        if (rewriter == null) {
          rewriter = ClassRewriter.over(loader, prefixes, Set.of());
          rewriters.put(loader, rewriter);
          Set<String> lines = new LinkedHashSet<>();
          for (Problem p : rewriter.analysis().problems()) {
            lines.add(p.toString());
          }
          for (String line : lines) {
            System.err.println("weft agent: cannot run as a continuation: " + line);
          }
        }
        return rewriter;
      }
    }
  }
}
