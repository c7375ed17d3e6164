package io.weft.continuations.testclient.shapes;

import static io.weft.continuations.testclient.shapes.SynchronizedShape.alone;
import static io.weft.continuations.testclient.shapes.SynchronizedShape.held;

import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Throws out of synchronized regions after a read (a block on a shared monitor in every other
 * session, a synchronized method in every third), catches outside, and enters the same regions
 * again: the monitors are released on the way out, so no session waits forever, each is alone
 * inside, and none holds a monitor after it left the region.
 */
public final class SynchronizedThrowingShape extends Shape {
  private static final Object SHARED = new Object();
  private static int inside;
  private int inMethod;

  public SynchronizedThrowingShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    String first;
    try {
      first = failing(t, index);
    } catch (IllegalStateException e) {
      first = "caught " + e.getMessage();
    }
    String second;
    try {
      second = failingMethod(t, index);
    } catch (IllegalArgumentException e) {
      second = "caught " + e.getMessage();
    }
    String again;
    synchronized (SHARED) {
      int before = inside++;
      again = echo(t, "again " + index) + alone(before, inside - 1);
      inside--;
    }
    return first + "|" + second + "|" + again + "|" + held(SHARED) + held(this);
  }

  private String failing(Transport t, int index) throws IOException {
    synchronized (SHARED) {
      int before = inside++;
      try {
        String got = echo(t, "throw " + index) + alone(before, inside - 1);
        if (index % 2 == 0) {
          throw new IllegalStateException(got);
        }
        return got;
      } finally {
        inside--;
      }
    }
  }

  private synchronized String failingMethod(Transport t, int index) throws IOException {
    int before = inMethod++;
    String got = echo(t, "method " + index) + alone(before, inMethod - 1);
    inMethod--;
    if (index % 3 == 0) {
      throw new IllegalArgumentException(got);
    }
    return got;
  }
}
