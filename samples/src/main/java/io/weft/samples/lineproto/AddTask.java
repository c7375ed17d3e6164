package io.weft.samples.lineproto;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;

/**
 * One session of the counter protocol: add the session's number, then try a negative amount,
 * which the server refuses. The task is the caller of {@link CounterClient} here: it catches the
 * refusal and carries on, in every mode. In continuation mode the exception is thrown after a
 * resume and caught in a rewritten frame, exactly as on a thread.
 *
 * <p>Returns {@code "refused: <reason>"}, a String: what leaves a continuation-mode session
 * should be of a JDK type (see {@link io.weft.transport.SessionTask}).
 */
public final class AddTask implements SessionTask<String> {
  /** The runner makes one for a whole run; it holds no state. */
  public AddTask() {}

  @Override
  public String run(Transport transport, int index) throws Exception {
    CounterClient counter = new CounterClient(transport);
    counter.add(index);
    String answer;
    try {
      counter.add(-1 - index);
      answer = "accepted";
    } catch (CounterRefusedException e) {
      answer = "refused: " + e.reason();
    }
    counter.quit();
    return answer;
  }
}
