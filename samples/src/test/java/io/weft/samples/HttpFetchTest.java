package io.weft.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.RunResult;
import io.weft.samples.http.HttpFetch;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class HttpFetchTest {
  @Test
  void fetchesEveryUrlAsContinuationsAndCountsEveryBodyByte() throws Exception {
    int urls = 500;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    RunResult<Long> result;
    try (PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
      result = HttpFetch.run(urls, 10, out);
    }
    long expectedBytes = 0;
    for (int i = 0; i < urls; i++) {
      expectedBytes += ("this is /item/" + i + "\n").length();
    }
    assertEquals(Mode.continuations(1), result.mode());
    assertEquals(50, result.sessions());
    assertTrue(result.allSucceeded(), result.toString());
    assertEquals(expectedBytes, result.values().stream().mapToLong(Long::longValue).sum());
    String output = printed.toString(StandardCharsets.UTF_8);
    assertTrue(output.startsWith("CONTINUATIONS(1): 500 URLs over 50 connections, " + expectedBytes + " bytes, 0 failed"),
        output);
  }
}
