package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTML report of a real run, rendered by headless Chromium (Debian's {@code chromium}):
 * the page's own script counts the chart lines the browser laid out. Skipped where Chromium is
 * missing, a failure in CI.
 */
class HtmlReportBrowserTest {
  @TempDir Path dir;

  @Test
  void chromiumRendersEveryChartOfTheReportWithNothingFromTheNetwork() throws Exception {
    Path chromium = Runs.binary("chromium", "chromium");
    Runs r = Runs.run(new File(dir.toFile(), "report"), "line", "--in-vm", "--mode", "continuations:1",
        "-u", "3", "-d", "2500ms", "--think", "5ms", "-q");
    assertEquals(0, r.exit, r::toString);
    File html = new File(r.out, "report.html");
    String page = Files.readString(html.toPath(), StandardCharsets.UTF_8);
    String offline = page.replace("http://www.w3.org/2000/svg", "");
    assertTrue(!offline.contains("http://") && !offline.contains("https://") && !offline.contains("src="),
        "the report links to the network");
    int polylines = count(page, "<polyline");
    // p50, p90, p99, max; ops/s, errors/s; one distribution line per operation: echo and connect.
    assertEquals(8, polylines);

    Path profile = Files.createDirectory(dir.resolve("chromium-profile"));
    Path dom = dir.resolve("dom.html");
    Process p = new ProcessBuilder(List.of(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-dev-shm-usage", "--no-first-run", "--user-data-dir=" + profile, "--dump-dom",
        html.toURI().toString()))
        .redirectOutput(dom.toFile()).redirectError(dir.resolve("chromium.err").toFile()).start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("chromium did not finish: " + Files.readString(dir.resolve("chromium.err")));
    }
    String rendered = Files.readString(dom, StandardCharsets.UTF_8);
    Matcher m = Pattern.compile("data-rendered=\"(\\d+)\"").matcher(rendered);
    assertTrue(m.find(), "the page's script did not run in chromium: " + Files.readString(dir.resolve("chromium.err")));
    assertEquals(polylines, Integer.parseInt(m.group(1)), "chart lines laid out by the browser");
  }

  private static int count(String s, String what) {
    int n = 0;
    for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
      n++;
    }
    return n;
  }
}
