package io.weft.continuations.testing;

import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.simple.SimpleServiceProvider;
import org.slf4j.spi.MDCAdapter;

/**
 * slf4j-simple with a working MDC (slf4j's BasicMDCAdapter, a thread-local map) instead of its
 * no-op one, so that the suite can show a session's MDC following it across suspends. Chosen by
 * the {@code slf4j.provider} system property in the module's surefire configuration.
 */
public final class MdcTestProvider extends SimpleServiceProvider {
  private final MDCAdapter mdc = new BasicMDCAdapter();

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdc;
  }
}
