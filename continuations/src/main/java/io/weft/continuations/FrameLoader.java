package io.weft.continuations;

import io.weft.continuations.internal.rewrite.ClassRewriter;
import io.weft.continuations.internal.rewrite.SuspendableAnalysis;
import java.util.List;
import java.util.Set;

/**
 * Defines rewritten copies of Weft's own frames on the suspend path ({@link SessionFrame},
 * {@link CheckedTransport}) for a runner whose task classes were rewritten ahead of time (by the
 * build tool or the agent) and come from the ordinary class loader. Everything else comes from
 * the parent unchanged. One per runner.
 */
final class FrameLoader extends RewritingClassLoader {
  static {
    registerAsParallelCapable();
  }

  FrameLoader(ClassLoader parent) {
    super("weft-frames", parent, new ClassRewriter(List.of(),
        new SuspendableAnalysis(internal -> ClassRewriter.bytes(parent, internal), Set.of()),
        ClassRewriter.weftFrames(parent), parent));
  }

  @Override
  boolean definesHere(String internal) {
    return internal.equals(FRAME) || internal.equals(CHECKED);
  }
}
