package io.weft.continuations.testoutside;

import io.weft.transport.Transport;
import java.io.IOException;

/** An interface outside the instrumented packages that an instrumented class implements. */
public interface Exchanges {
  String exchange(Transport transport, int count) throws IOException;
}
