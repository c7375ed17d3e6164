package io.weft.continuations.testclient;

import java.io.IOException;

/** One request line, one reply line: called through this interface to test inference. */
public interface Exchange {
  String call(String line) throws IOException;
}
