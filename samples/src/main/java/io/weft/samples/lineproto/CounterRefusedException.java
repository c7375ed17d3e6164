package io.weft.samples.lineproto;

import java.io.IOException;

/**
 * The counter server said {@code ERR}: it understood the request and refused it. A checked
 * {@link IOException} subtype of the protocol's own, so a caller can tell "refused, carry on"
 * from a broken connection, and catch it in every mode.
 */
public final class CounterRefusedException extends IOException {
  private final String reason;

  /** @param reason what the server said after {@code ERR } */
  public CounterRefusedException(String reason) {
    super("counter server refused: " + reason);
    this.reason = reason;
  }

  /** The server's reason, as it sent it after {@code ERR }. */
  public String reason() {
    return reason;
  }
}
