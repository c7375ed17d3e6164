package io.weft.perf.micro.session;

import java.io.IOException;

/**
 * What each of {@link PingPongTask}'s frames calls the next one through when
 * {@code throughInterface}: an interface call, which a resume dispatches again on the object the
 * frame saved.
 */
public interface Turns {
  /** Suspends {@code frames} frames down until it is {@code who}'s turn; false once stopped. */
  boolean awaitTurn(int frames, int who) throws IOException;
}
