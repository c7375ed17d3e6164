package io.weft.continuations.internal.rewrite;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Weft's mark on a class it rewrote for continuations, whoever ran the rewrite (the
 * {@code ContinuationClassLoader}, the {@code Rewrite} build tool or the {@code Agent}). Added
 * by {@link ClassRewriter}, never written by hand. The runtime reads it to tell a class that
 * was rewritten from one that was not, and the rewriter reads it to leave such a class alone
 * (so rewriting twice is harmless).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Rewritten {
  /** The methods (name + descriptor) that run rewritten, as defined. */
  String[] methods();

  /**
   * What stands in the way of running this class as a session task: the problems the analysis
   * found in the classes it can reach, each as class, method, descriptor and message separated
   * by {@code '\n'}.
   */
  String[] problems() default {};

  /**
   * True when the rewrite checked restored calls while their frame captures itself, which needs
   * JavaFlow's reference stack to be readable where the class runs: the choice is made in the JVM
   * that rewrites, so the runtime refuses such a class where it cannot read that stack. False for
   * classes rewritten before the mark said so (they check at the resume).
   */
  boolean captureChecks() default false;
}
