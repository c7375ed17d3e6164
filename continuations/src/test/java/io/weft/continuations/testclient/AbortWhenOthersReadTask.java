package io.weft.continuations.testclient;

import io.weft.continuations.testing.AbortSignals;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/**
 * Sessions 1 and up wait for a line that never comes; session 0, once they all read
 * ({@link AbortSignals#reading}), meets the heap's end (thrown, which the session frame reports as
 * it would a real one).
 */
public final class AbortWhenOthersReadTask implements SessionTask<String> {
  public AbortWhenOthersReadTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    if (index > 0) {
      AbortSignals.reading.countDown();
      return transport.readLineStrict(64);
    }
    try {
      AbortSignals.reading.await();
    } catch (InterruptedException e) {
      throw new IOException(e);
    }
    throw new OutOfMemoryError("Java heap space");
  }
}
