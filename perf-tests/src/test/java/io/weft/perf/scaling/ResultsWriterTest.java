package io.weft.perf.scaling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
class ResultsWriterTest {
  private static final ScalingResult RAN = new ScalingResult("pipe", "CALLBACK", 1000, 1000, 0,
      75.25, 250.5, 10, 80_000, 12, 4096.25, 1200, 3400.5, 9000, "");
  private static final ScalingResult NOT_RUN = ScalingResult.notRun("tcp", "THREADS", 100_000, 10,
      "over the cap, \"16000\"\nsee notes");

  @TempDir
  Path dir;

  @Test
  void csvHasAHeaderAndOneLinePerResult() throws Exception {
    Path file = dir.resolve("r.csv");
    ResultsWriter.writeCsv(file, List.of(RAN, NOT_RUN));
    String csv = Files.readString(file, StandardCharsets.UTF_8);
    String[] lines = csv.split("\r\n", -1);
    assertEquals(String.join(",", ResultsWriter.COLUMNS), lines[0]);
    assertEquals("pipe,CALLBACK,1000,1000,0,75.250,250.500,10.000,25.050,80000.000,12,4096.250,"
        + "1200.000,3400.500,9000.000,", lines[1]);
    assertTrue(csv.endsWith("\r\n"));
  }

  @Test
  void csvQuotesFieldsWithCommasQuotesAndLineBreaksAndLeavesUnmeasuredEmpty() throws Exception {
    Path file = dir.resolve("r.csv");
    ResultsWriter.writeCsv(file, List.of(NOT_RUN));
    String csv = Files.readString(file, StandardCharsets.UTF_8);
    String row = csv.substring(csv.indexOf("\r\n") + 2);
    assertEquals("tcp,THREADS,100000,0,0,,,10.000,,,,,,,,"
        + "\"over the cap, \"\"16000\"\"\nsee notes\"\r\n", row);
  }

  @Test
  void jsonHasTheEnvironmentAndOneObjectPerResultWithNullForUnmeasured() throws Exception {
    Path file = dir.resolve("r.json");
    Map<String, String> env = new LinkedHashMap<>();
    env.put("jdk", "17 \"Debian\"");
    env.put("cores", "2");
    ResultsWriter.writeJson(file, env, List.of(RAN, NOT_RUN));
    JsonNode json = new ObjectMapper().readTree(file.toFile());
    assertEquals("17 \"Debian\"", json.get("environment").get("jdk").asText());
    assertEquals("2", json.get("environment").get("cores").asText());
    JsonNode ran = json.get("results").get(0);
    assertEquals("pipe", ran.get("transport").asText());
    assertEquals("CALLBACK", ran.get("mode").asText());
    assertEquals(1000, ran.get("sessions").asInt());
    assertEquals(3400.5, ran.get("p99_us").asDouble());
    JsonNode notRun = json.get("results").get(1);
    assertTrue(notRun.get("wall_ms").isNull(), notRun.toString());
    assertTrue(notRun.get("peak_threads").isNull(), notRun.toString());
    assertEquals("over the cap, \"16000\"\nsee notes", notRun.get("note").asText());
    assertEquals(ResultsWriter.COLUMNS.length, ran.size());
  }

  @Test
  void jsonOfNoResultsIsAnEmptyArray() throws Exception {
    Path file = dir.resolve("r.json");
    ResultsWriter.writeJson(file, Map.of(), List.of());
    JsonNode json = new ObjectMapper().readTree(file.toFile());
    assertEquals(0, json.get("environment").size());
    assertTrue(json.get("results").isArray());
    assertEquals(0, json.get("results").size());
  }
}
