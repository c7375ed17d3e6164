package io.weft.continuations.internal.runtime;

import org.apache.commons.javaflow.core.StackRecorder;

/**
 * The cheap run-time check. While a continuation is being captured, frames only return through
 * the engine's capture code; no rewritten method is ever entered, and none returns by its own
 * code. So entering one, or one returning normally, while the recorder is capturing proves that
 * a frame which was not rewritten swallowed the suspend and carried on. The class rewriter calls
 * {@link #onEntry()} first thing in every method it rewrites and {@link #onReturn()} before each
 * of its returns; {@link CheckedTransport} calls {@link #onEntry()} on entry to every transport
 * operation. Each costs one thread-local read.
 */
public final class Guard {
  public static final String INTERNAL_NAME = "io/weft/continuations/internal/runtime/Guard";

  private Guard() {}

  public static void onEntry() {
    StackRecorder recorder = StackRecorder.get();
    if (recorder != null && recorder.isCapturing) {
      throw swallowed(recorder);
    }
  }

  public static void onReturn() {
    StackRecorder recorder = StackRecorder.get();
    if (recorder != null && recorder.isCapturing) {
      throw swallowed(recorder);
    }
  }

  private static Error swallowed(StackRecorder recorder) {
    Object context = recorder.getContext();
    if (context instanceof Fiber) {
      return ((Fiber) context).swallowed();
    }
    return FrameChecker.swallowedSuspend(-1);
  }
}
