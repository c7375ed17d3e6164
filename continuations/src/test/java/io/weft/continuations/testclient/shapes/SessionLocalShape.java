package io.weft.continuations.testclient.shapes;

import io.weft.continuations.SessionLocal;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;

/** A SessionLocal set before reads and read after each: the session's own value, in every mode. */
public final class SessionLocalShape extends Shape {
  private static final SessionLocal<List<String>> SENT = SessionLocal.withInitial(ArrayList::new);
  private static final SessionLocal<String> NAME = SessionLocal.create();

  public SessionLocalShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    NAME.set("session " + index);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < 3; i++) {
      SENT.get().add("line " + index + "." + i);
      out.append(echo(t, "line " + index + "." + i)).append(" as ").append(NAME.get()).append(';');
    }
    String result = out + " sent " + SENT.get();
    SENT.remove();
    NAME.remove();
    return result;
  }
}
