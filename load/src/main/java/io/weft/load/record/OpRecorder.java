package io.weft.load.record;

/**
 * Times a virtual user's named operations. Each session gets its own recorder; it is not safe
 * for use by several threads at once (a session runs on one thread at a time).
 *
 * <p>Timing is a start/stop pair, not a lambda, so that the code between them can suspend in
 * continuation mode:
 *
 * <pre>{@code
 * OpRecorder.Timer t = ops.start("GET");   // or: long s = ops.start();
 * HttpResponse r = http.get("/");
 * t.stop();                                 //     ops.stop("GET", s);
 * }</pre>
 *
 * <p>An operation that throws is not stopped: the exception leaves the iteration, and the driver
 * counts it as an error of the operation that was running (the last one started and not
 * stopped), by exception type. {@link #error} counts an error the scenario caught itself.
 */
public interface OpRecorder {

  /**
   * Starts timing operation {@code name} and returns its timer. A session has one timer per
   * name: starting a name again before stopping it restarts it.
   */
  Timer start(String name);

  /** The current time for {@link #stop(String, long)}, in the driver's clock (nanoseconds). */
  long start();

  /** Records operation {@code name} as started at {@code startNanos} (from {@link #start()}) and done now. */
  void stop(String name, long startNanos);

  /** Counts one failure of operation {@code name}, by the type of {@code error}. */
  void error(String name, Throwable error);

  /** Counts one failure of operation {@code name} of the kind {@code type}, e.g. {@code "HTTP 503"}. */
  void error(String name, String type);

  /** A running timing of one named operation; {@link #stop()} records it. */
  interface Timer {

    /** Records the operation as done now. A timer that is not running is ignored. */
    void stop();
  }
}
