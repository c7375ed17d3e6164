package io.weft.continuations.testclient;

import io.weft.transport.Transport;
import java.io.IOException;

/** A service found with ServiceLoader through the thread's context class loader. */
public interface Greeter {
  String greet(Transport transport, int index) throws IOException;
}
