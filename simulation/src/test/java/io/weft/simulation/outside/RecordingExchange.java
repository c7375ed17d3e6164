package io.weft.simulation.outside;

import io.weft.transport.Transport;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A frame that is never rewritten (its package is not instrumented, and the task finds it by
 * name, so the load-time analysis never sees it): it swallows the suspend of its read and calls
 * on. Defined by the application's loader, so the test reads what it did.
 */
public final class RecordingExchange implements LineExchange {
  /** What this frame got back from each transport call, in order. */
  public static final List<String> RETURNED = new CopyOnWriteArrayList<>();

  public RecordingExchange() {}

  @Override
  public String exchange(Transport transport) throws IOException {
    transport.writeLine("one");
    transport.flush();
    String reply = transport.readLine(64);
    RETURNED.add("read " + reply);
    transport.writeLine("two");
    RETURNED.add("wrote two");
    transport.flush();
    RETURNED.add("flushed two");
    return reply;
  }
}
