package io.weft.continuations.tools;

import io.weft.continuations.InstrumentationReport.Problem;
import io.weft.continuations.internal.rewrite.ClassRewriter;
import io.weft.continuations.internal.rewrite.HelperCopies;
import io.weft.continuations.internal.rewrite.SuspendableAnalysis;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.commons.javaflow.api.continuable;

/**
 * Rewrites compiled classes for continuations at build time: the same analysis and rewrite the
 * {@code ContinuationClassLoader} runs at load time, written back as class files, for programs
 * that cannot use a custom class loader. Run the result with
 * {@code SessionRunner.Builder.alreadyRewritten()}.
 *
 * <pre>
 * java -cp continuations.jar:&lt;its dependencies&gt; io.weft.continuations.tools.Rewrite \
 *     --classes target/classes --packages com.example.client,com.example.proto \
 *     [--output target/rewritten-classes] [--classpath a.jar:b.jar] [--allow-problems]
 * </pre>
 *
 * <ul>
 *   <li>{@code --classes DIR}: the classes to rewrite; only those under the packages are changed.
 *   <li>{@code --packages P,Q}: the package prefixes to rewrite (subpackages included).
 *   <li>{@code --output DIR}: write a copy of the whole classes directory there, rewritten;
 *       without it the classes are rewritten in place.
 *   <li>{@code --classpath PATH}: what the classes need to resolve their types (at least
 *       {@code transport-api}, and any suspending library they call), separated like the
 *       platform's class path; JavaFlow's api and Weft's continuations come from this tool's own
 *       class path if they are not there. Without it, the class path this tool runs with
 *       (with {@code exec:java}, the project's).
 *   <li>{@code --allow-problems}: write even when the analysis finds code that cannot suspend
 *       (say a task kept for the thread modes), and write every class that can be rewritten when
 *       JavaFlow's transformer fails on some (a method too large, say), listing those; the runner
 *       then refuses, before any session starts, a task that can reach such code, as the loader
 *       would, and a task class left as compiled as not rewritten.
 * </ul>
 *
 * <p>transport-api's binary helpers ({@code io.weft.transport.binary}) are rewritten with every
 * client, as the loader and the agent do; since their jar is not written here, each package whose
 * rewritten classes call a helper gets a rewritten copy of it ({@code com.example.client.WeftBinary})
 * and those classes call the copy. A class of that name that is not such a copy is refused.
 *
 * <p>It prints each class it rewrote. Running it again is harmless: classes that carry the mark
 * of Weft's rewrite are left as they are. It refuses, writing nothing, what the loader would
 * refuse for some task in the packages: a task that can reach a wait through a frame that cannot
 * be rewritten (a lambda, a JDK type, reflection, a constructor, code outside the packages), or
 * that calls {@code wait}/{@code notify} in a synchronized region that can suspend, printed one
 * line per method with the call chain. Code no task reaches is
 * never a reason to refuse. {@link #main} throws {@link Refused} then, so a build that
 * runs it fails.
 */
public final class Rewrite {
  private Rewrite() {}

  /** The rewrite refused, or was called wrongly; what and why is printed before. */
  public static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * Runs the tool from the command line; a build that runs it fails when it refuses.
   *
   * @param args the command line, as {@link #run} reads it
   * @throws Refused when {@link #run} does not return 0
   */
  public static void main(String[] args) {
    if (run(Arrays.asList(args), System.out, System.err) != 0) {
      throw new Refused("weft rewrite refused: see the messages above");
    }
  }

  /**
   * Runs the tool.
   *
   * @return 0 when done, 1 when refused (problems found, nothing to rewrite, the class path
   *     lacks the Transport API), 2 on a usage error
   * @param args the command line: {@code --classes}, {@code --output}, {@code --packages} and the options the usage lists
   * @param out where the summary goes
   * @param err where problems and usage errors go
   */
  public static int run(List<String> args, PrintStream out, PrintStream err) {
    Path classes = null;
    Path output = null;
    String classpath = null;
    List<String> packages = new ArrayList<>();
    boolean allowProblems = false;
    try {
      for (int i = 0; i < args.size(); i++) {
        String arg = args.get(i);
        switch (arg) {
          case "--classes":
            classes = Paths.get(value(args, ++i, arg));
            break;
          case "--output":
            output = Paths.get(value(args, ++i, arg));
            break;
          case "--classpath":
            classpath = value(args, ++i, arg);
            break;
          case "--packages":
            for (String p : value(args, ++i, arg).split(",")) {
              if (!p.isBlank()) {
                packages.add(p.trim());
              }
            }
            break;
          case "--allow-problems":
            allowProblems = true;
            break;
          default:
            throw new IllegalArgumentException("unknown argument " + arg);
        }
      }
      if (classes == null || packages.isEmpty()) {
        throw new IllegalArgumentException("--classes and --packages are required");
      }
      if (!Files.isDirectory(classes)) {
        throw new IllegalArgumentException("--classes " + classes + " is not a directory");
      }
      return rewrite(classes, output, classpath, ClassRewriter.prefixes(packages), allowProblems, out, err);
    } catch (IllegalArgumentException e) {
      err.println("weft rewrite: " + e.getMessage());
      err.println("usage: Rewrite --classes DIR --packages P[,Q...] [--output DIR] [--classpath PATH]"
          + " [--allow-problems]");
      return 2;
    } catch (IOException e) {
      err.println("weft rewrite: " + e);
      return 1;
    }
  }

  private static String value(List<String> args, int i, String name) {
    if (i >= args.size()) {
      throw new IllegalArgumentException(name + " needs a value");
    }
    return args.get(i);
  }

  private static int rewrite(Path classes, Path output, String classpath, List<String> prefixes,
      boolean allowProblems, PrintStream out, PrintStream err) throws IOException {
    Map<String, byte[]> inScope = inScope(classes, prefixes);
    if (inScope.isEmpty()) {
      err.println("weft rewrite: no classes under " + prefixes + " in " + classes
          + ": check --classes and --packages");
      return 1;
    }
    List<URL> urls = new ArrayList<>();
    urls.add(url(classes));
    ClassLoader parent;
    if (classpath == null) {
      parent = Thread.currentThread().getContextClassLoader();
    } else {
      parent = ClassLoader.getPlatformClassLoader();
      for (String entry : classpath.split(File.pathSeparator)) {
        if (!entry.isBlank()) {
          urls.add(url(Paths.get(entry)));
        }
      }
      // The engine reads JavaFlow's annotations and Weft's run-time check (called from every
      // rewritten method) as classes: from this tool's own class path, last, so given copies win.
      urls.add(continuable.class.getProtectionDomain().getCodeSource().getLocation());
      urls.add(Rewrite.class.getProtectionDomain().getCodeSource().getLocation());
    }
    try (URLClassLoader source = new URLClassLoader(urls.toArray(new URL[0]), parent)) {
      if (source.getResource("io/weft/transport/Transport.class") == null) {
        err.println("weft rewrite: io.weft.transport.Transport is not on the class path"
            + (classpath == null ? " this tool runs with" : " given with --classpath")
            + ": add the transport-api jar (and any suspending library the classes call)");
        return 1;
      }
      // The binary helpers are analysed with the classes, as the loader does, so that a call to
      // one is a call into rewritten code; the classes that call them get rewritten copies.
      Set<String> helpers = ClassRewriter.binaryHelpers(source);
      helpers.removeAll(inScope.keySet());
      Set<String> analysed = new TreeSet<>(inScope.keySet());
      analysed.addAll(helpers);
      SuspendableAnalysis analysis = new SuspendableAnalysis(internal -> {
        byte[] own = inScope.get(internal);
        return own != null ? own : ClassRewriter.bytes(source, internal);
      }, analysed);
      for (String warning : analysis.warnings()) {
        err.println("weft rewrite: warning: " + warning);
      }
      List<Problem> problems = analysis.problems();
      if (!problems.isEmpty()) {
        String what = allowProblems ? "warning: cannot run as a continuation: " : "cannot run as a continuation: ";
        // One line per method name: overloads with the same fault say the same.
        for (String p : new LinkedHashSet<>(problems.stream().map(Problem::toString).toList())) {
          err.println("weft rewrite: " + what + p);
        }
        if (!allowProblems) {
          err.println("weft rewrite: refused, nothing written: fix those (or, if those tasks only run in"
              + " THREADS or VIRTUAL_THREADS mode, pass --allow-problems; the runner then refuses them"
              + " in CONTINUATIONS mode)");
          return 1;
        }
      }
      ClassRewriter rewriter = new ClassRewriter(prefixes, analysis, Set.of(), source);
      Map<String, byte[]> changed = new TreeMap<>();
      List<String> failed = new ArrayList<>();
      Map<String, String> copied = new TreeMap<>();
      int already = 0;
      try {
        for (Map.Entry<String, byte[]> e : inScope.entrySet()) {
          ClassRewriter.Result result;
          try {
            result = rewriter.rewrite(e.getKey(), e.getValue());
          } catch (RuntimeException failure) {
            if (!allowProblems) {
              err.println("weft rewrite: the JavaFlow transformer failed on " + e.getKey().replace('/', '.')
                  + ": " + failure + "; nothing written");
              return 1;
            }
            // Left as compiled: the runner refuses it as not rewritten, naming the fix.
            failed.add(e.getKey().replace('/', '.') + ": " + failure);
            continue;
          }
          if (result.alreadyRewritten()) {
            already++;
          } else if (result.changed()) {
            changed.put(e.getKey(), result.bytes());
            out.println("rewrote " + e.getKey().replace('/', '.') + ": " + names(result.rewrittenMethods()));
          }
        }
        String clash = copyHelpers(changed, helpers, inScope, rewriter, source, copied);
        if (clash != null) {
          err.println("weft rewrite: " + clash + "; nothing written");
          return 1;
        }
      } finally {
        rewriter.release();
      }
      Path target = output == null ? classes : output;
      if (output != null) {
        copyTree(classes, output);
      }
      for (Map.Entry<String, byte[]> e : changed.entrySet()) {
        Path file = target.resolve(e.getKey() + ".class");
        Files.createDirectories(file.getParent());
        Files.write(file, e.getValue());
      }
      for (Map.Entry<String, String> c : copied.entrySet()) {
        out.println("copied " + c.getValue().replace('/', '.') + ", rewritten, to " + c.getKey().replace('/', '.')
            + " for the rewritten classes of its package that call it");
      }
      for (String f : failed) {
        err.println("weft rewrite: warning: not rewritten, left as compiled: " + f);
      }
      int rewritten = changed.size() - copied.size();
      out.println("weft rewrite: " + rewritten + " classes rewritten, " + already + " already rewritten, "
          + failed.size() + " could not be rewritten, "
          + (inScope.size() - rewritten - already - failed.size()) + " need nothing, " + copied.size()
          + " helper copies; packages " + prefixes
          + ", " + classes + (output == null ? " (in place)" : " -> " + output));
      return 0;
    }
  }

  /**
   * Points the calls of the rewritten classes in {@code changed} to transport-api's binary helpers
   * at rewritten copies in their own packages, and adds those copies to {@code changed}: the
   * helpers' jar is not written here, and as compiled a helper cannot suspend.
   *
   * @param copied filled with each copy's internal name and the helper it copies
   * @return null, or why a copy cannot be written (a class of that name that is not a copy)
   */
  private static String copyHelpers(Map<String, byte[]> changed, Set<String> helpers, Map<String, byte[]> inScope,
      ClassRewriter rewriter, ClassLoader source, Map<String, String> copied) {
    Map<String, byte[]> rewrittenHelpers = new TreeMap<>();
    for (String caller : new ArrayList<>(changed.keySet())) {
      byte[] bytes = changed.get(caller);
      Map<String, String> renames = new TreeMap<>();
      for (String helper : helpers) {
        renames.put(helper, HelperCopies.copyName(caller, helper));
      }
      boolean calls = false;
      for (String helper : helpers) {
        if (HelperCopies.refersTo(bytes, helper)) {
          calls = true;
          String copy = renames.get(helper);
          byte[] own = inScope.get(copy);
          if (own != null && !ClassRewriter.isMarked(own)) {
            return copy.replace('/', '.') + " is a class of your own, and the rewritten copy of "
                + helper.replace('/', '.') + " for " + caller.replace('/', '.') + " needs that name";
          }
          if (!copied.containsKey(copy)) {
            byte[] rewritten = rewrittenHelpers.computeIfAbsent(helper,
                h -> rewriter.rewrite(h, ClassRewriter.bytes(source, h)).bytes());
            changed.put(copy, HelperCopies.rename(rewritten, renames));
            copied.put(copy, helper);
          }
        }
      }
      if (calls) {
        try {
          changed.put(caller, HelperCopies.rename(bytes, renames));
        } catch (IllegalStateException e) {
          return e.getMessage();
        }
      }
    }
    return null;
  }

  /** The classes under the prefixes in {@code dir}: internal name to bytes. */
  private static Map<String, byte[]> inScope(Path dir, List<String> prefixes) throws IOException {
    Map<String, byte[]> found = new TreeMap<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String rel = dir.relativize(file).toString().replace(File.separatorChar, '/');
        if (!rel.endsWith(".class") || rel.endsWith("module-info.class") || rel.endsWith("package-info.class")) {
          continue;
        }
        String internal = rel.substring(0, rel.length() - 6);
        String dotted = internal.replace('/', '.');
        for (String prefix : prefixes) {
          if (dotted.startsWith(prefix)) {
            found.put(internal, Files.readAllBytes(file));
            break;
          }
        }
      }
    }
    return found;
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        Path dest = to.resolve(from.relativize(file).toString());
        if (Files.isDirectory(file)) {
          Files.createDirectories(dest);
        } else {
          Files.copy(file, dest, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  private static String names(Set<String> methods) {
    Set<String> names = new TreeSet<>();
    for (String m : methods) {
      names.add(m.substring(0, m.indexOf('(')));
    }
    return names.isEmpty() ? "marked @continuable, no method body to rewrite" : String.join(", ", names);
  }

  private static URL url(Path path) {
    try {
      return path.toAbsolutePath().toUri().toURL();
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException("not a usable path: " + path, e);
    }
  }
}
