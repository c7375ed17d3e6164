package io.weft.continuations.internal.runtime;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The trimming of captured stacks reads JavaFlow's private fields: they must be there in the
 * pinned version, or a simulation's waiting sessions silently keep twice their stack room.
 */
class CapturedStacksTest {
  @Test
  void javaFlowsStackFieldsAreFound() {
    assertTrue(CapturedStacks.enabled(), "JavaFlow's Stack fields (pstack, ostack, rstack, the tops) or"
        + " Continuation.stackRecorder were not found: the pinned version changed them");
  }
}
