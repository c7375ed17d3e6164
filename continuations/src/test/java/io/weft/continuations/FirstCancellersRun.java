package io.weft.continuations;

import io.weft.continuations.testing.MakerFrame;
import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.net.URL;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.List;

/**
 * For {@link FirstCancellersTest}'s child JVM: the JVM's first run is made by a thread of a group
 * of its own, at priority 2, running code of a class loader of its own (a web application's
 * thread, say), which also loads the session context class (a run's first session). Prints the
 * {@value AbortCancels#THREAD_NAME} threads that exist right after (no abort has come), their group
 * and priority, and whether that loader can be collected once its thread has ended and nothing of
 * the test holds it (nothing made statically then may keep a stack of the maker's frames).
 */
public final class FirstCancellersRun {
  private static final int COLLECTIONS = 50;

  private FirstCancellersRun() {}

  /** Defines {@link MakerFrame} itself, with a protection domain of its own; the rest from its parent. */
  static final class OwnLoader extends ClassLoader {
    OwnLoader(ClassLoader parent) {
      super("first-run-maker", parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.equals(MakerFrame.class.getName())) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        if (c != null) {
          return c;
        }
        try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
          byte[] bytes = in.readAllBytes();
          ProtectionDomain domain = new ProtectionDomain(
              new CodeSource(new URL("file:/first-run-maker/"), (Certificate[]) null), null, this, null);
          return defineClass(name, bytes, 0, bytes.length, domain);
        } catch (IOException e) {
          throw new ClassNotFoundException(name, e);
        }
      }
    }
  }

  public static void main(String[] args) throws Exception {
    WeakReference<ClassLoader> makersLoader = makeTheFirstRun();
    List<Thread> cancellers = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && t.getName().equals(AbortCancels.THREAD_NAME)) {
        cancellers.add(t);
      }
    }
    System.out.println("cancellers: " + cancellers.size());
    for (Thread t : cancellers) {
      ThreadGroup group = t.getThreadGroup();
      System.out.println("canceller: group " + (group == null ? "none" : group.getName())
          + (group != null && group.getParent() == null ? " (the root)" : "") + ", priority " + t.getPriority()
          + ", daemon " + t.isDaemon() + ", context loader " + t.getContextClassLoader());
    }
    for (int i = 0; i < COLLECTIONS && makersLoader.get() != null; i++) {
      System.gc();
    }
    System.out.println("maker's loader collected: " + (makersLoader.get() == null));
    System.exit(0);
  }

  /** The first RunControl of the JVM, made by the maker thread; that thread's loader, weakly. */
  private static WeakReference<ClassLoader> makeTheFirstRun() throws Exception {
    ClassLoader own = new OwnLoader(FirstCancellersRun.class.getClassLoader());
    Class<?> frameClass = own.loadClass(MakerFrame.class.getName());
    if (frameClass.getClassLoader() != own) {
      throw new AssertionError("the maker's frame is not its loader's own: " + frameClass.getClassLoader());
    }
    // A run's first steps: its control (the cancellers) and a session's context (its class,
    // loaded now under the maker's frames, must keep nothing of them: review-hostile3-s15 1).
    Runnable makeRun = () -> {
      new RunControl(1_000L);
      new io.weft.continuations.internal.runtime.SessionContext(0, null, null, null, null);
    };
    Runnable frame = (Runnable) frameClass.getConstructor(Runnable.class).newInstance(makeRun);
    ThreadGroup group = new ThreadGroup("first-run-maker");
    group.setMaxPriority(3);
    Thread maker = new Thread(group, frame, "first-run-maker");
    maker.setPriority(2);
    maker.setContextClassLoader(own);
    maker.start();
    maker.join();
    return new WeakReference<>(own);
  }
}
