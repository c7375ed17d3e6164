package io.weft.continuations;

import io.weft.continuations.internal.rewrite.ClassRewriter;
import io.weft.continuations.internal.rewrite.RewrittenMethods;
import io.weft.continuations.internal.runtime.CheckedTransport;
import io.weft.continuations.internal.runtime.SessionFrame;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A class loader that defines some classes itself, rewritten by a {@link ClassRewriter} from the
 * parent's class files, records which of their methods run rewritten (kept with
 * {@link RewrittenMethods#keepRecord}), and delegates every other class to the parent. The
 * runtime loaders ({@link ContinuationClassLoader}, {@link FrameLoader}) differ only in which
 * classes they define here. Package-private, so that the public loader's type names nothing
 * internal.
 */
abstract class RewritingClassLoader extends ClassLoader {
  /** Weft's own frames on the suspend path, which every runtime loader defines rewritten. */
  static final String FRAME = SessionFrame.class.getName().replace('.', '/');
  static final String CHECKED = CheckedTransport.class.getName().replace('.', '/');

  static {
    registerAsParallelCapable();
  }

  /** Rewrites the classes this loader defines. */
  final ClassRewriter rewriter;
  private final Map<String, Set<String>> rewritten = new ConcurrentHashMap<>();

  RewritingClassLoader(String name, ClassLoader parent, ClassRewriter rewriter) {
    super(name, parent);
    this.rewriter = rewriter;
    RewrittenMethods.keepRecord(this, rewritten::get);
  }

  /**
   * True if the class of this internal name is defined, rewritten, here; false: the parent's.
   *
   * @param internal a JVM internal class name, such as {@code com/example/Client}
   * @return true if this loader defines the class
   */
  abstract boolean definesHere(String internal);

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
