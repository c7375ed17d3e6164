package io.weft.load.scenario;

import io.weft.load.record.OpRecorder;
import io.weft.transport.Transport;

/**
 * One virtual user of a load run, written as plain blocking code against a {@link Transport}.
 *
 * <p>Lifecycle: the driver makes one instance per virtual user (a session), with a public
 * constructor taking {@code java.util.Map<String, String>} (the run's {@code --param}s) or none.
 * It calls {@link #connected} whenever the user has a newly opened transport (at the start, and
 * again after the transport was closed by the scenario or by a failure), then {@link #iteration}
 * as the workload model says. Keep per-user state in fields: an instance belongs to one session.
 *
 * <p>An exception from either method counts as an error of the operation that was running and
 * ends that iteration and its connection (after it the stream's position is unknown); the user's
 * next iteration connects anew and calls {@link #connected} again, so no call is made on a
 * transport that failed or was closed. Count an error the server reports on a healthy
 * connection with {@link OpRecorder#error(String, String)} instead of throwing. The same class runs in every mode; in continuation mode it is rewritten as it
 * loads, so it must not wait through a lambda, a stream or reflection.
 */
public interface Scenario {

  /** A new transport is open: wrap it in a client, say hello, log in. */
  void connected(Transport transport, OpRecorder ops) throws Exception;

  /** One iteration: the operations to time, through {@code ops}. */
  void iteration(OpRecorder ops) throws Exception;

  /**
   * The load profile and thresholds this scenario runs with unless the command line says
   * otherwise (Gatling's {@code setUp}, k6's {@code options}); null, the default, for none. The
   * driver reads it once, before the run, from an instance it makes for that alone (with the
   * run's parameters; it never connects or iterates), so keep the constructor free of side effects.
   *
   * @return the declared workload, or null
   */
  default Workload workload() {
    return null;
  }
}
