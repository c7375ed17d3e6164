package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/** Reads inside a comparator that List.sort calls: a JDK frame in between, refused at load time. */
public final class LambdaTask implements SessionTask<String> {
  public LambdaTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    List<String> names = new ArrayList<>(List.of("b", "a"));
    names.sort((x, y) -> {
      try {
        transport.writeLine(x + " " + y);
        transport.flush();
        return Integer.parseInt(transport.readLine(100));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    return String.join(",", names);
  }
}
