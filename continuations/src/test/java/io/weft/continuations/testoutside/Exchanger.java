package io.weft.continuations.testoutside;

import io.weft.transport.Transport;
import java.io.IOException;

/** An interface outside the instrumented packages, implemented only outside them. */
public interface Exchanger {
  String exchange(Transport transport, int count) throws IOException;
}
