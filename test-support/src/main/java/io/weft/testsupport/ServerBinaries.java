package io.weft.testsupport;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds the real server programs tests run against ({@code redis-server}, {@code nginx}) and
 * free loopback ports for them. Missing programs are reported, not hidden: callers decide
 * whether that is a skip (a developer's machine) or a failure (CI, see {@link #inCi()}).
 */
public final class ServerBinaries {
  /** Searched after {@code PATH}: Debian puts nginx in /usr/sbin, which users' PATHs often lack. */
  private static final List<String> EXTRA_DIRS = List.of("/usr/sbin", "/usr/local/sbin", "/usr/local/bin", "/usr/bin");

  private ServerBinaries() {}

  /** Returns the executable called {@code name} on PATH or in the sbin directories, or null. */
  public static Path find(String name) {
    List<String> dirs = new ArrayList<>();
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(File.pathSeparator)) {
        if (!dir.isEmpty()) {
          dirs.add(dir);
        }
      }
    }
    dirs.addAll(EXTRA_DIRS);
    for (String dir : dirs) {
      Path candidate = Path.of(dir, name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  /** True when running in CI ({@code CI=true}), where a missing server must fail the build. */
  public static boolean inCi() {
    return "true".equalsIgnoreCase(System.getenv("CI"));
  }

  /** What to tell a developer whose machine lacks {@code binary}. */
  public static String missingMessage(String binary, String debianPackage) {
    return "'" + binary + "' not found on PATH or in " + EXTRA_DIRS + ": install the Debian package '"
        + debianPackage + "' (apt-get install -y " + debianPackage + ") to run these tests"
        + (inCi() ? "; CI=true, so this is a failure" : "; skipping them");
  }

  /**
   * Returns a loopback TCP port that was free a moment ago. There is a race with other
   * processes until the server binds it; loopback ports on a test machine rarely collide.
   */
  public static int freeLoopbackPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
