package io.weft.protocols;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Protocol code knows only {@code Transport}: no MINA, no JavaFlow, nothing from
 * {@code io.weft.continuations}. Checked on the sources, since the build's classpath alone
 * would not catch a reflective or test-scoped slip.
 */
class ProtocolImportsTest {
  private static final List<String> FORBIDDEN = List.of("org.apache.mina", "net.tascalate", "io.weft.continuations");

  @Test
  void protocolSourcesImportNeitherMinaNorJavaflowNorTheRunner() throws IOException {
    Path sources = Path.of("src/main/java");
    assertTrue(Files.isDirectory(sources), "run from the protocols module: " + sources.toAbsolutePath());
    List<String> offenders = new ArrayList<>();
    try (Stream<Path> files = Files.walk(sources)) {
      for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
          for (String forbidden : FORBIDDEN) {
            if (line.contains(forbidden)) {
              offenders.add(file + ": " + line.trim());
            }
          }
        }
      }
    }
    assertEquals(List.of(), offenders);
  }
}
