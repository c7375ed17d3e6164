package io.weft.continuations.internal;

import org.apache.commons.javaflow.core.StackRecorder;

/**
 * The cheap run-time check. While a continuation is being captured, frames only return; no
 * rewritten method is ever entered. So entering one while the recorder is capturing proves that
 * a frame which was not rewritten swallowed the suspend and carried on. The class loader calls
 * {@link #onEntry()} first thing in every method it rewrites; {@link CheckedTransport} calls it
 * on entry to every transport operation. Costs one thread-local read.
 */
public final class Guard {
  public static final String INTERNAL_NAME = "io/weft/continuations/internal/Guard";

  private Guard() {}

  public static void onEntry() {
    StackRecorder recorder = StackRecorder.get();
    if (recorder != null && recorder.isCapturing) {
      Object context = recorder.getContext();
      throw FrameChecker.swallowedSuspend(context instanceof Fiber ? ((Fiber) context).index() : -1);
    }
  }
}
