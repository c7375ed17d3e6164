package io.weft.load.scenario.internal;

import io.weft.continuations.spi.SessionCancelledException;
import io.weft.continuations.spi.Suspend;
import io.weft.load.internal.Arrivals;
import io.weft.load.internal.Metrics;
import io.weft.load.internal.Plan;
import io.weft.load.record.OpRecorder;
import io.weft.load.scenario.Scenario;
import io.weft.transport.Transport;
import io.weft.transport.spi.Deadlines;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.Map;

/**
 * The session task of every load run: one virtual user. It makes the scenario, then runs
 * iterations as the plan's workload model says (a count or a time, with think time, in the
 * closed model; one per arrival taken from the dispatcher in the open model), reconnecting when
 * the transport was closed. It waits only through {@link Suspend#await}, so in continuation mode
 * a waiting user is a suspended continuation, and returns the number of iterations it ran.
 *
 * <p>In continuation mode this class and the scenario are loaded by the runner's instrumenting
 * class loader, while the plan and the metrics come from the application's: only those, the
 * JDK and the transport API cross between them.
 */
public final class VirtualUser implements io.weft.transport.SessionTask<Long> {
  private final Plan plan;
  private final Constructor<?> scenario;
  private final boolean withParams;

  public VirtualUser(Plan plan) {
    this.plan = plan;
    Class<?> type;
    try {
      type = Class.forName(plan.scenarioClass(), true, VirtualUser.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException("scenario class not found: " + plan.scenarioClass(), e);
    }
    if (!Scenario.class.isAssignableFrom(type)) {
      throw new IllegalArgumentException(type.getName() + " does not implement " + Scenario.class.getName());
    }
    Constructor<?> c;
    boolean params;
    try {
      c = type.getConstructor(Map.class);
      params = true;
    } catch (NoSuchMethodException e) {
      try {
        c = type.getConstructor();
        params = false;
      } catch (NoSuchMethodException e2) {
        throw new IllegalArgumentException(type.getName() + " needs a public constructor taking Map<String, String> or none");
      }
    }
    this.scenario = c;
    this.withParams = params;
  }

  private Scenario newScenario() throws Exception {
    try {
      return (Scenario) (withParams ? scenario.newInstance(plan.params()) : scenario.newInstance());
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      throw cause instanceof Exception ? (Exception) cause : e;
    }
  }

  @Override
  public Long run(Transport transport, int index) throws Exception {
    OpRecorder ops = plan.newSession();
    Scenario user = newScenario();
    Transport current = transport;
    long done = 0L;
    try {
      boolean ready = connected(user, current, ops);
      if (plan.open()) {
        Arrivals.Slot slot = plan.slot();
        while (true) {
          long intended = slot.next();
          while (intended == Arrivals.NONE) {
            Suspend.await(slot, Deadlines.FOREVER);
            intended = slot.next();
          }
          if (intended == Arrivals.END || plan.stopping()) {
            break;
          }
          plan.begin(ops, intended);
          try {
            if (!ready || !current.isOpen()) {
              current = reconnect(current, index, ops);
              ready = current != null && connected(user, current, ops);
            }
            if (ready) {
              iteration(user, ops);
            }
          } finally {
            plan.end();
          }
          done++;
        }
      } else {
        long think = plan.thinkNanos();
        while (plan.another(done)) {
          if (done > 0L && think > 0L) {
            Suspend.await(Plan.NEVER, think);
          }
          plan.begin(ops);
          try {
            if (!ready || !current.isOpen()) {
              current = reconnect(current, index, ops);
              ready = current != null && connected(user, current, ops);
            }
            if (ready) {
              iteration(user, ops);
            }
          } finally {
            plan.end();
          }
          done++;
        }
      }
      return done;
    } finally {
      if (current != null && current != transport) {
        current.close();
      }
    }
  }

  private void iteration(Scenario user, OpRecorder ops) throws Exception {
    try {
      user.iteration(ops);
    } catch (SessionCancelledException e) {
      throw e;
    } catch (Exception e) {
      plan.failed(ops, e, Metrics.ITERATION);
    }
  }

  private boolean connected(Scenario user, Transport transport, OpRecorder ops) throws Exception {
    try {
      user.connected(transport, ops);
      return true;
    } catch (SessionCancelledException e) {
      throw e;
    } catch (Exception e) {
      plan.failed(ops, e, Metrics.CONNECT);
      transport.close();
      return false;
    }
  }

  /**
   * A new transport in place of {@code old}, timed as the operation {@code connect}, or null
   * (counted as a connect error) if that fails. Part of the iteration that needed it.
   */
  private Transport reconnect(Transport old, int index, OpRecorder ops) throws Exception {
    if (old != null) {
      old.close();
    }
    try {
      OpRecorder.Timer t = ops.start(Metrics.CONNECT);
      Transport transport = plan.connector().connect(plan.address(index), plan.timeout());
      t.stop();
      return transport;
    } catch (SessionCancelledException e) {
      throw e;
    } catch (Exception e) {
      plan.failed(ops, e, Metrics.CONNECT);
      return null;
    }
  }
}
