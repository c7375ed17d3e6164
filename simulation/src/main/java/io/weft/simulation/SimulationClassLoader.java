package io.weft.simulation;

import io.weft.continuations.InstrumentationReport;
import io.weft.continuations.internal.rewrite.ClassRewriter;
import io.weft.continuations.internal.rewrite.RewritingClassLoader;
import io.weft.continuations.internal.rewrite.SuspendableAnalysis;
import io.weft.continuations.internal.runtime.CheckedTransport;
import io.weft.continuations.internal.runtime.SessionFrame;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The instrumenting class loader of a simulation: {@code ContinuationClassLoader}'s rewrite of the
 * given packages (what can suspend, and the session frames), plus the simulation's own
 * {@link Redirects}: the clock and random sources of rewritten code read the run's virtual time and
 * seed. A class with a redirected call is defined here even if nothing in it suspends.
 */
final class SimulationClassLoader extends RewritingClassLoader {
  static {
    registerAsParallelCapable();
  }

  private final SuspendableAnalysis analysis;
  private final Set<String> childFirst = new HashSet<>();

  SimulationClassLoader(ClassLoader parent, Collection<String> packages) {
    super("weft-simulation", parent, ClassRewriter.over(parent, ClassRewriter.prefixes(packages),
        ClassRewriter.weftFrames(parent), Redirects.rules()));
    this.analysis = rewriter.analysis();
    childFirst.addAll(analysis.classesToRewrite());
    childFirst.add(SessionFrame.class.getName().replace('.', '/'));
    childFirst.add(CheckedTransport.class.getName().replace('.', '/'));
    // As the continuation loader: classes with nothing to rewrite stay the parent's, and the
    // rewritten ones reach their package-private members through accessors.
    rewriter.splitLoaders(childFirst);
  }

  List<String> packages() {
    return rewriter.packages();
  }

  boolean inPackages(String className) {
    return rewriter.inPrefixes(className.replace('.', '/'));
  }

  List<InstrumentationReport.Problem> problemsFor(String className) {
    return new ArrayList<>(analysis.problemsReachableFrom(className.replace('.', '/')));
  }

  @Override
  protected boolean definesHere(String internal) {
    return childFirst.contains(internal);
  }
}
