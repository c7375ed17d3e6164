package io.weft.continuations.internal.rewrite;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A class loader that defines some classes itself, rewritten by a {@link ClassRewriter} from the
 * parent's class files, records which of their methods run rewritten, and delegates every other
 * class to the parent. The runtime loaders ({@code ContinuationClassLoader},
 * {@link FrameLoader}) differ only in which classes they define here.
 */
public abstract class RewritingClassLoader extends ClassLoader implements RewrittenMethods.Record {
  static {
    registerAsParallelCapable();
  }

  /** Rewrites the classes this loader defines. */
  protected final ClassRewriter rewriter;
  private final Map<String, Set<String>> rewritten = new ConcurrentHashMap<>();

  protected RewritingClassLoader(String name, ClassLoader parent, ClassRewriter rewriter) {
    super(name, parent);
    this.rewriter = rewriter;
  }

  /** True if the class of this internal name is defined, rewritten, here; false: the parent's. */
  protected abstract boolean definesHere(String internal);

  @Override
  public final Set<String> rewrittenMethods(String className) {
    return rewritten.get(className);
  }

  @Override
  protected final Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    if (!definesHere(name.replace('.', '/'))) {
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
