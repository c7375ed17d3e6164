package io.weft.transport.mina.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;

/**
 * Waits for a line its server never sends, and counts {@code sawCancel} down when that wait ends
 * with the run's cancel (or anything else), then ends with it. Keeps its transport in
 * {@code kept[index]}, for the test to look at once the run is over.
 */
public final class AwaitCancelTask implements SessionTask<String> {
  private final CountDownLatch sawCancel;
  private final Transport[] kept;

  public AwaitCancelTask(CountDownLatch sawCancel, Transport[] kept) {
    this.sawCancel = sawCancel;
    this.kept = kept;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    kept[index] = transport;
    try {
      return transport.readLineStrict(64);
    } finally {
      sawCancel.countDown();
    }
  }
}
