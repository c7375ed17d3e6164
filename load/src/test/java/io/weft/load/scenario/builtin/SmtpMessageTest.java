package io.weft.load.scenario.builtin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SmtpMessageTest {
  @ParameterizedTest
  @ValueSource(ints = {0, 1, 10, 77, 1024, 100_000})
  void messageIsExactlyTheGivenSizeInShortLines(int size) {
    byte[] m = SmtpScenario.message(size, "a@b.test", "c@d.test");
    assertEquals(size, m.length);
    for (String line : new String(m, StandardCharsets.US_ASCII).split("\r\n")) {
      assertTrue(line.length() <= 998, "SMTP line limit");
    }
  }
}
