package io.weft.continuations.testing;

import io.weft.continuations.ThreadContext;
import io.weft.continuations.testoutside.Library;
import java.util.Set;

/** Carries {@link Library}'s thread-local context across a session's waits. */
public final class LibraryContext implements ThreadContext<String> {
  @Override
  public Set<String> carries() {
    return Set.of(Library.class.getName());
  }

  @Override
  public String takeOff() {
    String context = Library.current();
    if (context != null) {
      Library.end();
    }
    return context;
  }

  @Override
  public void putBack(String context) {
    Library.begin(context);
  }
}
