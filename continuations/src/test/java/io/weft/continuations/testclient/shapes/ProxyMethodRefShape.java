package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * {@link ProxyShape}'s proxy, called through a method reference of the client's own functional
 * interface ({@code Exchanger::exchange}): the call into the proxy is made inside the bridge that
 * the rewrite makes for the method reference, which holds the proxy in a parameter: a call checked
 * like one in the client's own code.
 */
public final class ProxyMethodRefShape extends Shape {
  /** One step, as the client names it. */
  public interface Step {
    String apply(ProxyShape.Exchanger exchanger, Transport t, String line) throws IOException;
  }

  public ProxyMethodRefShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    ProxyShape.Exchanger direct = new ProxyShape.Echoing();
    String last = "";
    for (int i = 0; i < ProxyShape.PLAIN_EXCHANGES; i++) {
      last = direct.exchange(t, "p" + index + "-" + i);
    }
    ProxyShape.Exchanger marked = (ProxyShape.Exchanger) Proxy.newProxyInstance(
        ProxyShape.Exchanger.class.getClassLoader(), new Class<?>[] {ProxyShape.Exchanger.class},
        new ProxyShape.Marking(direct));
    Step step = ProxyShape.Exchanger::exchange;
    return last + "|" + step.apply(marked, t, "q" + index);
  }
}
