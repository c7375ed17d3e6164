package io.weft.transport.mina.outside;

import io.weft.transport.Transport;
import java.io.IOException;

/** An exchange over a transport, by a helper outside the instrumented packages. */
public interface LineExchange {
  String exchange(Transport transport) throws IOException;
}
