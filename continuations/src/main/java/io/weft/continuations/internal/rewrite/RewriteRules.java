package io.weft.continuations.internal.rewrite;

import java.util.ArrayList;
import java.util.List;

/**
 * What a rewrite adds to the analysis and the class rewriting, beyond making methods suspend:
 * the {@link CallSiteRedirects} applied to every class it changes, and the {@link SessionRule}s
 * that refuse a task at load time. The one place where passes plug in: give the rules to
 * {@link SuspendableAnalysis} (and so to {@link ClassRewriter#over}); the loader, the agent and
 * the {@code Rewrite} tool all use {@link #DEFAULT}. Immutable.
 *
 * @param redirects the call-site redirect pass
 * @param rules the load-time checks, asked in this order after the built-in suspend-path rule
 */
public record RewriteRules(CallSiteRedirects redirects, List<SessionRule> rules) {
  /** What every way of rewriting applies: the suspend-path checks, and no redirect yet. */
  public static final RewriteRules DEFAULT = new RewriteRules(CallSiteRedirects.NONE, List.of());

  public RewriteRules {
    rules = List.copyOf(rules);
  }

  /** These rules, with {@code more} redirects. */
  public RewriteRules withRedirects(List<CallSiteRedirect> more) {
    return new RewriteRules(redirects.with(more), rules);
  }

  /** These rules, with {@code more} load-time checks after them. */
  public RewriteRules withRules(List<SessionRule> more) {
    List<SessionRule> all = new ArrayList<>(rules);
    all.addAll(more);
    return new RewriteRules(redirects, all);
  }

  /** The checks the walk asks: the built-in suspend-path rule first. */
  List<SessionRule> walkRules() {
    List<SessionRule> all = new ArrayList<>();
    all.add(SuspendPathRules.INSTANCE);
    all.addAll(rules);
    return all;
  }
}
