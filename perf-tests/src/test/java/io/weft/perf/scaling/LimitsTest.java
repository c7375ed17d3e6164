package io.weft.perf.scaling;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class LimitsTest {

  @Test
  void procFiguresAreReadWhole() {
    assumeTrue(Files.isReadable(Path.of("/proc/sys/kernel/pid_max")), "needs Linux /proc");
    // pid_max is at least 301 and the port range at least a few hundred wide on any Linux;
    // a read that stops after the first byte (as a size-0 /proc file invites) gives 1 digit.
    String note = Limits.threadLimitsNote();
    assertTrue(note.matches(".*kernel\\.pid_max=\\d{3,}, kernel\\.threads-max=\\d{3,}.*"), note);
    assertTrue(Limits.ephemeralPorts() > 100, "ephemeral ports: " + Limits.ephemeralPorts());
  }
}
