package io.weft.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.RunResult;
import io.weft.samples.lineproto.LineProtocol;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LineProtocolTest {
  @Test
  void theCallerCatchesTheProtocolsOwnExceptionSynchronouslyAndInsideContinuations() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    RunResult<String> result;
    try (PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
      result = LineProtocol.run(out);
    }
    String output = printed.toString(StandardCharsets.UTF_8);
    assertTrue(output.startsWith("ADD 5 -> total 5\nADD -5 -> CounterRefusedException, reason: negative amount: -5\n"),
        output);
    assertTrue(result.allSucceeded(), result.toString());
    assertEquals(100, result.sessions());
    for (int i = 0; i < 100; i++) {
      assertEquals("refused: negative amount: " + (-1 - i), result.outcome(i).value());
    }
  }
}
