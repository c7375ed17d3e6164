package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Reads through an object the JDK makes, which the load-time walk cannot see: a
 * {@code java.lang.reflect.Proxy} of the client's own interface, whose handler calls the real
 * exchanger by reflection and marks the result with how many times it ran. Neither the proxy's
 * class nor the reflective call can pass a suspend on: the suspend inside is swallowed, and a
 * resume would skip the handler (a result without its mark) or run it again. Each session first
 * makes more plain exchanges than a run's first suspends that the run-time check walks, so that the
 * suspends through the proxy are caught by the caller's check of the restored call (made while the
 * caller captures itself, before the session suspends), not by that walk.
 */
public final class ProxyShape extends Shape {
  /** More than the suspends at the start of a run whose stack is walked. */
  static final int PLAIN_EXCHANGES = 70;

  /** One exchange, as the client names it. */
  public interface Exchanger {
    String exchange(Transport t, String line) throws IOException;
  }

  public ProxyShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    Exchanger direct = new Echoing();
    String last = "";
    for (int i = 0; i < PLAIN_EXCHANGES; i++) {
      last = direct.exchange(t, "p" + index + "-" + i);
    }
    Exchanger marked = (Exchanger) Proxy.newProxyInstance(Exchanger.class.getClassLoader(),
        new Class<?>[] {Exchanger.class}, new Marking(direct));
    return last + "|" + marked.exchange(t, "q" + index);
  }

  static final class Echoing implements Exchanger {
    @Override
    public String exchange(Transport t, String line) throws IOException {
      return echo(t, line);
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
