package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * weft-load hands the launcher its own exit code in the file the launcher names (see
 * {@code load/weft-load} and {@link LauncherTest}): written over the blanks the launcher put there,
 * so that a full disk, where the JVM's archive then fails, has room for it; the first line is the code.
 */
class ExitCodeFileTest {
  @TempDir
  Path dir;

  @Test
  void theCodeIsWrittenOverTheLaunchersBlanksWithoutGrowingTheFile() throws Exception {
    Path file = Files.writeString(dir.resolve("run.tmp.code"), "    \n", StandardCharsets.US_ASCII);
    WeftLoad.recordExitCode(file.toString(), 3);
    assertEquals("3", Files.readAllLines(file, StandardCharsets.US_ASCII).get(0));
    assertEquals(5, Files.size(file));
  }

  @Test
  void withoutAFileNameNothingIsWritten() throws Exception {
    WeftLoad.recordExitCode(null, 1);
    WeftLoad.recordExitCode("", 1);
    try (var files = Files.list(dir)) {
      assertEquals(0, files.count());
    }
  }
}
