package io.weft.continuations.internal;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Defines rewritten copies of Weft's own frames on the suspend path ({@link SessionFrame},
 * {@link CheckedTransport}) for a runner whose task classes were rewritten ahead of time (by the
 * build tool or the agent) and come from the ordinary class loader. Everything else comes from
 * the parent unchanged. One per runner.
 */
public final class FrameLoader extends ClassLoader implements RewrittenMethods.Record {
  static {
    registerAsParallelCapable();
  }

  private final ClassRewriter rewriter;
  private final Map<String, Set<String>> rewritten = new ConcurrentHashMap<>();

  public FrameLoader(ClassLoader parent) {
    super("weft-frames", parent);
    SuspendableAnalysis none = new SuspendableAnalysis(internal -> ClassRewriter.bytes(parent, internal), Set.of());
    this.rewriter = new ClassRewriter(List.of(), none, ClassRewriter.weftFrames(parent), parent);
  }

  @Override
  public Set<String> rewrittenMethods(String className) {
    return rewritten.get(className);
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    String internal = name.replace('.', '/');
    if (!internal.equals(ClassRewriter.FRAME) && !internal.equals(ClassRewriter.CHECKED)) {
      return super.loadClass(name, resolve);
    }
    synchronized (getClassLoadingLock(name)) {
      Class<?> c = findLoadedClass(name);
      if (c == null) {
        ClassRewriter.Result result = rewriter.rewriteFrom(getParent(), name);
        rewritten.put(name, result.rewrittenMethods());
        c = defineClass(name, result.bytes(), 0, result.bytes().length);
      }
      if (resolve) {
        resolveClass(c);
      }
      return c;
    }
  }
}
