package io.weft.perf.scaling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
class ScalingChartsTest {
  @TempDir
  Path dir;

  @Test
  void writesTwoPngChartsPerTransport() throws Exception {
    List<ScalingResult> results = List.of(
        row("pipe", "CALLBACK", 100, 50_000, 900), row("pipe", "CALLBACK", 1000, 90_000, 1500),
        row("pipe", "THREADS", 100, 30_000, 1200), row("pipe", "THREADS", 1000, 40_000, 3000),
        row("tcp", "CALLBACK", 100, 20_000, 2000),
        ScalingResult.notRun("tcp", "THREADS", 1000, 10, "over the cap"));
    List<Path> files = ScalingCharts.write(dir, results);
    assertEquals(List.of(dir.resolve("events-per-second-pipe.png"), dir.resolve("p99-latency-pipe.png"),
        dir.resolve("events-per-second-tcp.png"), dir.resolve("p99-latency-tcp.png")), files);
    for (Path file : files) {
      assertTrue(Files.size(file) > 1000, file + " is " + Files.size(file) + " bytes");
      BufferedImage image = ImageIO.read(file.toFile());
      assertNotNull(image, file + " is not an image");
      assertEquals(900, image.getWidth());
      assertEquals(560, image.getHeight());
    }
  }

  @Test
  void writesNothingWhenNoModeRan() throws Exception {
    List<Path> files = ScalingCharts.write(dir,
        List.of(ScalingResult.notRun("pipe", "THREADS", 100, 10, "no transport")));
    assertEquals(List.of(), files);
  }

  private static ScalingResult row(String transport, String mode, int sessions, double events,
      double p99) {
    return new ScalingResult(transport, mode, sessions, sessions, 0, 50, 100, 10, events, 10, 4000,
        p99 / 2, p99, p99 * 2, "");
  }
}
