package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Reads inside synchronized regions: a block on a shared monitor, a synchronized method that calls
 * another one on the same object (reentrant) whose block returns early, a static synchronized
 * method, and two nested blocks. Each region counts the sessions inside it when the session enters
 * and again after its read: in every mode, a session is alone in each, as in SYNC, and the thread
 * holds the monitor after the read. One more region, which cannot suspend, stays a plain monitor.
 */
public final class SynchronizedShape extends Shape {
  private static final Object SHARED = new Object();
  private static int inShared;
  private static int inStatic;
  private static int served;
  private final Object inner = new Object();
  private int inMethod;
  private int inNested;

  public SynchronizedShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    String block;
    synchronized (SHARED) {
      int before = inShared++;
      block = echo(t, "block " + index) + alone(before, inShared - 1);
      inShared--;
    }
    String method = exchange(t, index);
    String stat = staticExchange(t, index);
    String nested;
    synchronized (SHARED) {
      synchronized (inner) {
        int before = inNested++;
        nested = echo(t, "nested " + index) + alone(before, inNested - 1) + held(SHARED) + held(inner);
        inNested--;
      }
    }
    count();
    return block + "|" + method + "|" + stat + "|" + nested;
  }

  /** A region that cannot suspend: it stays a plain monitor. */
  private static void count() {
    synchronized (SHARED) {
      served++;
    }
  }

  private synchronized String exchange(Transport t, int index) throws IOException {
    int before = inMethod++;
    String got = again(t, index);
    String out = got + alone(before, inMethod - 1);
    inMethod--;
    return out;
  }

  private synchronized String again(Transport t, int index) throws IOException {
    synchronized (this) {
      if (index >= 0) {
        return echo(t, "method " + index) + held(this);
      }
    }
    return "never";
  }

  private static synchronized String staticExchange(Transport t, int index) throws IOException {
    int before = inStatic++;
    String got = echo(t, "static " + index) + held(SynchronizedShape.class);
    String out = got + alone(before, inStatic - 1);
    inStatic--;
    return out;
  }

  static String alone(int before, int after) {
    return before == 0 && after == 0 ? " alone" : " with " + before + "/" + after + " others";
  }

  static String held(Object monitor) {
    return Thread.holdsLock(monitor) ? " held" : " not held";
  }
}
