package io.weft.transport.netty.testclient;

import io.weft.continuations.spi.EventLoopThread;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Echoes numbered lines and answers "lines:onLoop": how many of its reads returned on an
 * event-loop thread. Between two transport calls the session claims itself in {@link #RUNNING}
 * for the thread running it; a continuation that ran on two threads at once would find itself
 * claimed already, and counts that in {@link #OVERLAPS}.
 */
public final class GuardedEchoTask implements SessionTask<String> {
  /** Session index to the thread running it between two transport calls. */
  public static final Map<Integer, Thread> RUNNING = new ConcurrentHashMap<>();
  /** Times a session found itself already running on another thread. */
  public static final AtomicInteger OVERLAPS = new AtomicInteger();

  private final int lines;

  public GuardedEchoTask(int lines) {
    this.lines = lines;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    int onLoop = 0;
    for (int i = 0; i < lines; i++) {
      String sent = "session " + index + " line " + i;
      transport.writeLine(sent);
      transport.flush();
      claim(index);
      release(index);
      String got = transport.readLineStrict(200);
      claim(index);
      if (!sent.equals(got)) {
        throw new ProtocolViolationException("sent " + sent + ", got " + got);
      }
      if (EventLoopThread.inEventLoop()) {
        onLoop++;
      }
      release(index);
    }
    return lines + ":" + onLoop;
  }

  private static void claim(int index) {
    if (RUNNING.putIfAbsent(index, Thread.currentThread()) != null) {
      OVERLAPS.incrementAndGet();
    }
  }

  private static void release(int index) {
    RUNNING.remove(index);
  }
}
