/**
 * The rewriter behind {@code io.weft.continuations}: the whole-program suspendable analysis, the
 * class rewriting shared by every way of rewriting (the instrumenting class loaders, the build
 * tool and the agent in {@code io.weft.continuations.tools}), and the {@code @Rewritten} mark it
 * leaves. It runs before sessions start, or at build time; the runtime reads its marks only to
 * name a frame that was not rewritten. <strong>Not API</strong>: anything here may change in any
 * release.
 */
package io.weft.continuations.internal.rewrite;
