package io.weft.protocols;

import static org.junit.jupiter.api.Assertions.fail;

import io.weft.testsupport.ServerBinaries;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/** Finds a real server's program, or skips the test (developer machine) or fails it (CI). */
public final class RealServers {
  private RealServers() {}

  /**
   * Returns the path of {@code binary}. When it is missing: with {@code CI=true} the test
   * fails; otherwise it is skipped, loudly, with the Debian package to install.
   */
  public static Path require(String binary, String debianPackage) {
    Path path = ServerBinaries.find(binary);
    if (path != null) {
      return path;
    }
    String message = ServerBinaries.missingMessage(binary, debianPackage);
    System.err.println("WARNING: " + message);
    if (ServerBinaries.inCi()) {
      fail(message);
    }
    Assumptions.abort(message);
    throw new AssertionError("unreachable");
  }
}
