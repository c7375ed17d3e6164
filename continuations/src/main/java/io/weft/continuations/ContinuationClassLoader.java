package io.weft.continuations;

import io.weft.continuations.internal.rewrite.ClassRewriter;
import io.weft.continuations.internal.rewrite.RedirectRules;
import io.weft.continuations.internal.rewrite.RewriteRules;
import io.weft.continuations.internal.rewrite.SuspendableAnalysis;
import io.weft.continuations.rewrite.spi.CallRedirects;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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
 * JavaFlow's transformer rewrite the marked methods. (The same step as the build-time
 * {@code io.weft.continuations.tools.Rewrite} and the {@code io.weft.continuations.tools.Agent};
 * a class already rewritten by either is defined as it is.) Only the classes that must be
 * rewritten are defined here, child-first: those with a method that can suspend, and those that
 * refer to one of them (else they would link to the parent's copy, which cannot suspend).
 * Everything else (exceptions, records, plain data, the JDK, JavaFlow's API, the Transport API,
 * Weft's runtime, libraries) comes from the parent, unchanged: so the caller can catch the task's
 * own exception types and use its records, and a second copy of JavaFlow's API, which would
 * break every session, never appears. A rewritten class reaches the package-private members of
 * such a parent class (an exception's package-private constructor, say) through accessors bound
 * at first use, since the two are in different run-time packages; only a class that is not public,
 * a nest mate, or a superclass whose package-private members a rewritten subclass calls through
 * super or overrides, is defined here with them.
 *
 * <p>Objects of the classes defined here are not instances of the parent's classes of the same
 * name: a task's client class comes from this loader, its result and exception types do not.
 */
public final class ContinuationClassLoader extends RewritingClassLoader {
  private static final Logger log = LoggerFactory.getLogger(ContinuationClassLoader.class);

  static {
    registerAsParallelCapable();
  }

  private final SuspendableAnalysis analysis;
  private final Set<String> childFirst = new HashSet<>();
  private final InstrumentationReport report;

  /**
   * Scans {@code packages} and makes the loader that rewrites what can suspend in them.
   *
   * @param parent where everything comes from; the in-scope classes are read from it as bytes
   * @param packages package names whose classes (and subpackages' classes) are rewritten, e.g.
   *     {@code "com.example.client"}
   * @throws IllegalArgumentException if a package would take in Weft's runtime, JavaFlow or the
   *     JDK
   */
  public ContinuationClassLoader(ClassLoader parent, Collection<String> packages) {
    this("weft-continuations", parent, packages, RewriteRules.DEFAULT);
  }

  /**
   * Scans {@code packages} and makes the loader that rewrites what can suspend in them, with
   * {@code redirects} applied to every class it rewrites (a class with a redirected call is
   * defined here even if nothing in it suspends). A class reachable from a task that was rewritten
   * before and makes a redirected call is one of the task's {@linkplain #problemsFor problems}.
   *
   * @param name the loader's name, as stack traces and heap dumps show it
   * @param parent where everything comes from; the in-scope classes are read from it as bytes
   * @param packages package names whose classes (and subpackages' classes) are rewritten
   * @param redirects the calls sent elsewhere in the rewritten classes
   * @throws IllegalArgumentException if a package would take in Weft's runtime, JavaFlow or the
   *     JDK
   */
  public ContinuationClassLoader(String name, ClassLoader parent, Collection<String> packages,
      CallRedirects redirects) {
    this(name, parent, packages, RedirectRules.of(redirects));
  }

  private ContinuationClassLoader(String name, ClassLoader parent, Collection<String> packages,
      RewriteRules rules) {
    super(name, parent,
        ClassRewriter.over(parent, ClassRewriter.prefixes(packages), ClassRewriter.weftFrames(parent), rules));
    this.analysis = rewriter.analysis();
    childFirst.addAll(analysis.classesToRewrite());
    childFirst.add(FRAME);
    childFirst.add(CHECKED);
    rewriter.splitLoaders(childFirst);
    this.report = new InstrumentationReport(
        analysis.suspendableMethods(), analysis.problems(), analysis.warnings());
    // A problem matters only to a task that reaches it, and that task's run is refused naming
    // it; the whole list is for whoever looks.
    for (InstrumentationReport.Problem problem : report.problems()) {
      log.debug("cannot run as a continuation: {}", problem);
    }
    for (String warning : report.warnings()) {
      log.info("{}", warning);
    }
  }

  /**
   * What the scan found: suspendable methods, problems, warnings.
   *
   * @return the report of what was rewritten and which problems were found
   */
  public InstrumentationReport report() {
    return report;
  }

  /**
   * The packages this loader rewrites, each ending with a dot.
   *
   * @return the package names whose classes this loader rewrites
   */
  public List<String> packages() {
    return rewriter.packages();
  }

  /**
   * The problems that stand in the way of running {@code className} as a continuation: those in
   * the classes it can reach.
   *
   * @param className a binary class name, such as {@code com.example.Client}
   * @return the problems found in that class; empty if there are none
   */
  public List<InstrumentationReport.Problem> problemsFor(String className) {
    return analysis.problemsReachableFrom(className.replace('.', '/'));
  }

  /**
   * True if {@code className} is defined and rewritten here rather than by the parent.
   *
   * @param className a binary class name, such as {@code com.example.Client}
   * @return true if that class was loaded rewritten
   */
  public boolean isInstrumented(String className) {
    return childFirst.contains(className.replace('.', '/'));
  }

  /**
   * True if {@code className} is under the packages this loader was given.
   *
   * @param className a binary class name, such as {@code com.example.Client}
   * @return true if that class lies in one of the {@link #packages()}
   */
  public boolean inPackages(String className) {
    return rewriter.inPrefixes(className.replace('.', '/'));
  }

  @Override
  boolean definesHere(String internal) {
    return childFirst.contains(internal);
  }
}
