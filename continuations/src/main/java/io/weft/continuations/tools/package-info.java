/**
 * Rewriting for continuations ahead of time, for programs that cannot use the
 * {@code ContinuationClassLoader}: {@link io.weft.continuations.tools.Rewrite}, a main that
 * rewrites compiled classes at build time, and {@link io.weft.continuations.tools.Agent}, a
 * {@code -javaagent} that rewrites them as they load. Both run the loader's analysis and rewrite
 * step; run what they rewrote with {@code SessionRunner.Builder.alreadyRewritten()}.
 */
package io.weft.continuations.tools;
