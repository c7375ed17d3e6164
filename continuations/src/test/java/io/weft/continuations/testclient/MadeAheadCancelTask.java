package io.weft.continuations.testclient;

import io.weft.continuations.internal.runtime.Fiber;
import io.weft.continuations.internal.runtime.Sessions;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;

/**
 * Returns, as its value, the exception its run made ahead for a session cancelled before it
 * connects with no room for one of its own ({@code SessionContext.cancelledWithNoRoom()}), as its
 * fiber holds it; null outside a continuation session.
 */
public final class MadeAheadCancelTask implements SessionTask<Object> {
  public MadeAheadCancelTask() {}

  @Override
  public Object run(Transport transport, int index) {
    Fiber fiber = Sessions.current();
    return fiber == null ? null : fiber.cancelledWithNoRoom();
  }
}
