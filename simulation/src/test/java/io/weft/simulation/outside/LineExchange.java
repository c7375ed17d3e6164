package io.weft.simulation.outside;

import io.weft.transport.Transport;
import java.io.IOException;

/** An interface outside the instrumented packages, implemented only outside them. */
public interface LineExchange {
  String exchange(Transport transport) throws IOException;
}
