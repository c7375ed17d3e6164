/**
 * The continuation runtime behind {@code io.weft.continuations}: the fiber each session runs in
 * and its waits, the ready-queue scheduler, the wait timer, the session's bottom frame and the
 * run-time checks that the rewritten code calls ({@link io.weft.continuations.internal.runtime.Guard},
 * {@link io.weft.continuations.internal.runtime.CheckedTransport}). It implements the SPI's
 * {@code SuspendableSession}; nothing on its suspend and resume path needs ASM. Only the failure
 * path (naming a frame that was not rewritten) reads class files ({@code CallSites}) and the
 * rewriter's marks ({@code RewrittenMethods}). <strong>Not API</strong>: anything here may
 * change in any release. Its classes are public because the session's bottom frame is defined by
 * the instrumenting class loader, in another run-time package, and calls into them.
 */
package io.weft.continuations.internal.runtime;
