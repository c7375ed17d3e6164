package io.weft.continuations.internal.runtime;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.spi.WaitRegistration;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.net.SocketAddress;

/**
 * What one session needs and what it ended with; the same in every mode. {@link SessionFrame}
 * reads it and records the outcome in it.
 */
public class SessionContext {
  private final int index;
  private final Connector connector;
  private final SocketAddress address;
  private final Timeout timeout;
  private final SessionTask<?> task;
  private ConnectPacing.Pacer pacer;
  private volatile Transport transport;
  volatile boolean cancelled;
  private volatile boolean finished;
  private Object value;
  private Throwable failure;

  public SessionContext(int index, Connector connector, SocketAddress address, Timeout timeout, SessionTask<?> task) {
    this.index = index;
    this.connector = connector;
    this.address = address;
    this.timeout = timeout;
    this.task = task;
  }

  /** Never wakes: waiting on it sleeps for the wait's timeout. */
  public static final WaitRegistration NEVER = new WaitRegistration() {
    @Override
    public void register(Runnable wakeUp) {
      // Nothing wakes a pacing wait but its own timeout.
    }
  };

  /** Paces this session's connect with the run's other sessions'; null for no pacing. */
  public void pacer(ConnectPacing.Pacer pacer) {
    this.pacer = pacer;
  }

  /** Reserves this session's turn to connect: how long to wait first, in nanoseconds. */
  public long connectWaitNanos() {
    return pacer == null ? 0L : pacer.reserve();
  }

  private static final String CONTINUATION_DEATH_NAME = "org.apache.commons.javaflow.core.ContinuationDeath";
  /** The engine's stack-unwinding signal's class (package-private in JavaFlow), or null if absent. */
  private static final Class<?> CONTINUATION_DEATH = continuationDeath();

  private static Class<?> continuationDeath() {
    try {
      return Class.forName(CONTINUATION_DEATH_NAME, false, SessionContext.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      return null;
    }
  }

  /**
   * True for the engine's own stack-unwinding signal, which sessions must let through. Allocates
   * nothing for the errors a session ends with when the heap has run out (a class's name is
   * made on its first call, which may be that moment): the class is compared, and the name only
   * for an error from another copy of the engine.
   */
  public static boolean isContinuationDeath(Throwable t) {
    if (!(t instanceof Error) || t instanceof VirtualMachineError) {
      return false;
    }
    Class<?> c = t.getClass();
    return c == CONTINUATION_DEATH || c.getName().equals(CONTINUATION_DEATH_NAME);
  }

  public int index() {
    return index;
  }

  public Connector connector() {
    return connector;
  }

  public SocketAddress address() {
    return address;
  }

  public Timeout timeout() {
    return timeout;
  }

  public SessionTask<?> task() {
    return task;
  }

  /** The session's transport is open; a cancel from now on closes it. */
  public void opened(Transport transport) {
    this.transport = transport;
    if (cancelled) {
      transport.close();
    }
  }

  /**
   * The session has ended and closed its transport: forget the transport, so that a finished
   * session, which the run keeps for its outcome, holds none of its connection's buffers.
   */
  public void released() {
    this.transport = null;
  }

  public void succeeded(Object value) {
    if (!finished) {
      this.value = value;
      finished = true;
    }
  }

  /** The error that ended this session because a suspend was swallowed, or null. */
  public io.weft.continuations.NotInstrumentedError swallowError() {
    return null;
  }

  /** True when the task's transport gets the run-time check in front of it (continuations). */
  public boolean checked() {
    return this instanceof Fiber;
  }

  /** Replaces whatever was recorded: the session is known to have gone wrong. */
  public void failedHard(Throwable failure) {
    this.value = null;
    this.failure = failure;
    finished = true;
  }

  public void failed(Throwable failure) {
    if (!finished) {
      this.failure = failure;
      finished = true;
    }
  }

  public boolean isFinished() {
    return finished;
  }

  public boolean isCancelled() {
    return cancelled;
  }

  public Object value() {
    return value;
  }

  public Throwable failure() {
    return failure;
  }

  /**
   * Marks the session cancelled and closes its transport, if open, from any thread. A session
   * that has already ended keeps its outcome: the cancel came after it.
   */
  public void cancel() {
    if (finished) {
      return;
    }
    cancelled = true;
    Transport t = transport;
    if (t != null) {
      t.close();
    }
  }
}
