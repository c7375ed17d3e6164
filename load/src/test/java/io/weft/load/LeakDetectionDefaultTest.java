package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code weft-load}'s {@code main} turns Netty's leak detector off only when the user chose
 * nothing: a choice by any name Netty reads it from is the user's and is left alone.
 */
class LeakDetectionDefaultTest {
  @Test
  void noChoiceLeavesTheDefaultToWeftLoad() {
    assertFalse(WeftLoad.leakDetectionChosen(new Properties()));
  }

  @ParameterizedTest
  @ValueSource(strings = {"io.netty.leakDetection.level", "io.netty.leakDetectionLevel", "io.netty.noResourceLeakDetection"})
  void aChoiceByAnyOfNettysNamesIsTheUsers(String name) {
    Properties properties = new Properties();
    properties.setProperty(name, "paranoid");
    assertTrue(WeftLoad.leakDetectionChosen(properties), name);
  }
}
