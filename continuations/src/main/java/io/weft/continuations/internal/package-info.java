/**
 * The machinery behind {@code io.weft.continuations}: fibers, the ready-queue scheduler, the
 * suspendable-method analysis, the bottom stack frame of every session. <strong>Not API</strong>:
 * anything here may change in any release. Its classes are public only because the session's
 * bottom frame is defined by the instrumenting class loader, in another runtime package, and
 * because the build tool and the agent in {@code io.weft.continuations.tools} share the rewrite
 * step ({@link io.weft.continuations.internal.ClassRewriter}).
 */
package io.weft.continuations.internal;
