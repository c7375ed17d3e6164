package io.weft.samples;

import static org.junit.jupiter.api.Assertions.fail;

import io.weft.testsupport.RedisServerProcess;
import io.weft.testsupport.ServerBinaries;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/** Starts a real redis-server for a sample's test, or skips the test (developer machine) or fails it (CI). */
final class Redis {
  private Redis() {}

  static RedisServerProcess start() throws IOException {
    Path binary = ServerBinaries.find(RedisServerProcess.BINARY);
    if (binary == null) {
      String message = ServerBinaries.missingMessage(RedisServerProcess.BINARY, RedisServerProcess.DEBIAN_PACKAGE);
      System.err.println("WARNING: " + message);
      if (ServerBinaries.inCi()) {
        fail(message);
      }
      Assumptions.abort(message);
    }
    return RedisServerProcess.start(binary);
  }
}
