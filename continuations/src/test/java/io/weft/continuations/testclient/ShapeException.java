package io.weft.continuations.testclient;

import java.io.IOException;

/** The client's own protocol exception: the caller must be able to catch it by its type. */
public final class ShapeException extends IOException {
  private static final long serialVersionUID = 1L;

  public ShapeException(String message) {
    super(message);
  }
}
