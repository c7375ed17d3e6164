package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Every exchange goes through one call site ({@link #via}), whose check of the restored call
 * (made at the caller's capture) sees it again at each suspend: first {@link #PLAIN_EXCHANGES} through rewritten exchangers (one class, or three
 * in turn when {@code megamorphic}), then, unless {@code odd} is {@code "none"}, one through an
 * object that swallows the suspend at that same site: a JDK proxy (a class made after the site
 * first checked), or {@link First} defined again, unrewritten, by a class loader of the session's
 * own (the same class name from another loader), or {@link SelfCalling} defined again so, whose
 * unrewritten {@code exchange} reads through a rewritten method it inherits and calls on itself:
 * the object the engine would call again is then the receiver itself, and only the check that the
 * method it dispatches to was rewritten refuses it. Each plain exchanger tags its result, so a
 * resume into the wrong object shows in the value.
 */
public final class CachedSiteShape extends Shape {
  /** More than the suspends at the start of a run whose stack is walked. */
  static final int PLAIN_EXCHANGES = 70;

  /** One exchange, as the client names it. */
  public interface Exchanger {
    String exchange(Transport t, String line) throws IOException;
  }

  private final String odd;
  private final boolean megamorphic;

  public CachedSiteShape(AtomicIntegerArray runs, String odd, Boolean megamorphic) {
    super(runs);
    this.odd = odd;
    this.megamorphic = megamorphic;
  }

  /** The value a session returns when every exchange is a plain one. */
  public static String expected(int index, boolean megamorphic) {
    int last = PLAIN_EXCHANGES - 1;
    String tag = !megamorphic ? "A" : new String[] {"A", "B", "C"}[last % 3];
    return tag + ":p" + index + "-" + last;
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    Exchanger[] plain = megamorphic ? new Exchanger[] {new First(), new Second(), new Third()}
        : new Exchanger[] {new First()};
    String last = "";
    for (int i = 0; i < PLAIN_EXCHANGES; i++) {
      last = via(plain[i % plain.length], t, "p" + index + "-" + i);
    }
    switch (odd) {
      case "none":
        return last;
      case "proxy":
        Exchanger marked = (Exchanger) Proxy.newProxyInstance(Exchanger.class.getClassLoader(),
            new Class<?>[] {Exchanger.class}, new Marking(plain[0]));
        return last + "|" + via(marked, t, "q" + index);
      case "otherLoader":
        return last + "|" + via(unrewritten(First.class), t, "q" + index);
      case "sameObject":
        return last + "|" + via(unrewritten(SelfCalling.class), t, "q" + index);
      default:
        throw new IllegalArgumentException(odd);
    }
  }

  /** The one call site of every exchange. */
  private static String via(Exchanger e, Transport t, String line) throws IOException {
    return e.exchange(t, line);
  }

  /** {@code type} as compiled, defined by a loader that reads its class file and rewrites nothing. */
  private static Exchanger unrewritten(Class<? extends Exchanger> type) throws IOException {
    ClassLoader parent = CachedSiteShape.class.getClassLoader();
    String name = type.getName();
    byte[] bytes;
    try (InputStream in = parent.getResourceAsStream(name.replace('.', '/') + ".class")) {
      bytes = in.readAllBytes();
    }
    try {
      Class<?> again = new OneClassLoader(parent, name, bytes).loadClass(name);
      return (Exchanger) again.getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Defines one class from the given bytes itself; everything else comes from the parent. */
  static final class OneClassLoader extends ClassLoader {
    private final String name;
    private final byte[] bytes;

    OneClassLoader(ClassLoader parent, String name, byte[] bytes) {
      super(parent);
      this.name = name;
      this.bytes = bytes;
    }

    @Override
    protected Class<?> loadClass(String n, boolean resolve) throws ClassNotFoundException {
      synchronized (getClassLoadingLock(n)) {
        if (!n.equals(name)) {
          return super.loadClass(n, resolve);
        }
        Class<?> c = findLoadedClass(n);
        return c != null ? c : defineClass(n, bytes, 0, bytes.length);
      }
    }
  }

  /** Public, and through the transport only: it is also defined by another loader. */
  public static final class First implements Exchanger {
    @Override
    public String exchange(Transport t, String line) throws IOException {
      t.writeLine(line);
      t.flush();
      return "A:" + t.readLineStrict(1000);
    }
  }

  /**
   * Rewritten, and defined only by the session's loader: the round trip its subclass calls on
   * itself. A suspend in it pushes the object it runs on, the subclass's.
   */
  public static class SelfReading {
    public String roundTrip(Transport t, String line) throws IOException {
      t.writeLine(line);
      t.flush();
      return "S:" + t.readLineStrict(1000);
    }
  }

  /**
   * Also defined again, unrewritten, by another loader, extending the rewritten {@link
   * SelfReading}: its {@code exchange} swallows the suspend made in the inherited round trip and
   * returns to the call site as if its call had returned.
   */
  public static final class SelfCalling extends SelfReading implements Exchanger {
    @Override
    public String exchange(Transport t, String line) throws IOException {
      return roundTrip(t, line) + ".";
    }
  }

  static final class Second implements Exchanger {
    @Override
    public String exchange(Transport t, String line) throws IOException {
      return "B:" + echo(t, line);
    }
  }

  static final class Third implements Exchanger {
    @Override
    public String exchange(Transport t, String line) throws IOException {
      return "C:" + echo(t, line);
    }
  }

  /** Calls the target and marks its result with how many times it ran. */
  static final class Marking implements InvocationHandler {
    private final Object target;
    private int calls;

    Marking(Object target) {
      this.target = target;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      calls++;
      try {
        return method.invoke(target, args) + "!" + calls;
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }
  }
}
