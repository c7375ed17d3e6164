package io.weft.protocols;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;

/**
 * A protocol test class run once per mode: a subclass is a {@code @ParameterizedClass} whose
 * arguments are {@link ModeCase}s. Each invocation opens its mode before its tests and closes it
 * after them; a test of a mode this JDK cannot run (virtual threads on 17) is skipped, saying why.
 * The servers a subclass starts are its own, shared by every mode.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class PerModeTest {
  /** The mode of this invocation. */
  @Parameter
  protected ModeCase modeCase;
  /** That mode, open while this invocation's tests run. */
  protected SessionMode mode;

  @BeforeParameterizedClassInvocation
  protected final void openMode() {
    mode = modeCase.factory().get();
  }

  @AfterParameterizedClassInvocation
  protected final void closeMode() {
    mode.close();
  }

  @BeforeEach
  protected final void modeRunsOnThisJdk() {
    Assumptions.assumeTrue(mode.available(), mode::unavailableReason);
  }
}
