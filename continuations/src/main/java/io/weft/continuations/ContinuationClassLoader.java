package io.weft.continuations;

import io.weft.continuations.internal.CheckedTransport;
import io.weft.continuations.internal.ClassRewriter;
import io.weft.continuations.internal.RewritingClassLoader;
import io.weft.continuations.internal.SessionFrame;
import io.weft.continuations.internal.SuspendableAnalysis;
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
 * a class already rewritten by either is defined as it is.) Classes under those packages are defined
 * here, child-first; everything else (the JDK, JavaFlow's API, the Transport API, Weft's
 * runtime, libraries) comes from the parent, unchanged: a second copy of JavaFlow's API in here
 * would break every session.
 *
 * <p>Objects of in-scope classes made by this loader are not instances of the parent's classes
 * of the same name; pass JDK types across.
 */
public final class ContinuationClassLoader extends RewritingClassLoader {
  private static final Logger log = LoggerFactory.getLogger(ContinuationClassLoader.class);
  private static final String FRAME = SessionFrame.class.getName().replace('.', '/');
  private static final String CHECKED = CheckedTransport.class.getName().replace('.', '/');

  static {
    registerAsParallelCapable();
  }

  private final SuspendableAnalysis analysis;
  private final Set<String> childFirst = new HashSet<>();
  private final InstrumentationReport report;

  /**
   * @param parent where everything comes from; the in-scope classes are read from it as bytes
   * @param packages package names whose classes (and subpackages' classes) are rewritten, e.g.
   *     {@code "com.example.client"}
   * @throws IllegalArgumentException if a package would take in Weft's runtime, JavaFlow or the
   *     JDK
   */
  public ContinuationClassLoader(ClassLoader parent, Collection<String> packages) {
    super("weft-continuations", parent,
        ClassRewriter.over(parent, ClassRewriter.prefixes(packages), ClassRewriter.weftFrames(parent)));
    this.analysis = rewriter.analysis();
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
  }

  /** What the scan found: suspendable methods, problems, warnings. */
  public InstrumentationReport report() {
    return report;
  }

  /** The packages this loader rewrites, each ending with a dot. */
  public List<String> packages() {
    return rewriter.packages();
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
  protected boolean definesHere(String internal) {
    return childFirst.contains(internal)
        || (rewriter.inPrefixes(internal) && getParent().getResource(internal + ".class") != null);
  }
}
