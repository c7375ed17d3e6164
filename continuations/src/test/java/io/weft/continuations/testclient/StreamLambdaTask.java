package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Reads inside a stream's map: JDK frames in between, refused at load time. */
public final class StreamLambdaTask implements SessionTask<String> {
  public StreamLambdaTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    return Stream.of("a", "b").map(line -> exchange(transport, line)).collect(Collectors.joining(","));
  }

  private static String exchange(Transport transport, String line) {
    try {
      transport.writeLine(line);
      transport.flush();
      return transport.readLine(100);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
