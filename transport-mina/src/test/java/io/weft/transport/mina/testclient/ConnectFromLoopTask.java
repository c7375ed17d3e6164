package io.weft.transport.mina.testclient;

import io.weft.continuations.spi.EventLoopThread;
import io.weft.continuations.spi.LoopThread;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.mina.SuspendingMinaConnector;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * An echoed line on the session's own transport, so that the session then runs where its reply
 * arrived: on its MINA processor, unless resumed on workers (more lines, up to 100, while a reply
 * was there before the session could suspend for it); then a second connect, through the
 * same connector, to {@code second}, with one echoed line over it. Answers where the second
 * connect was made ("loop" or "elsewhere") and how it went: "connected" with the echo, or the
 * exception's class and message; then, if asked, one more echoed line on its own transport. A
 * second connection made on a loop is served by that loop: if its echo resumes the session on
 * another loop thread, the answer says "read on another loop".
 */
public final class ConnectFromLoopTask implements SessionTask<String> {
  private static final int FIRST_EXCHANGES = 100;

  private final SuspendingMinaConnector connector;
  private final SocketAddress second;
  private final long timeoutMillis;
  private final boolean thenOwn;

  public ConnectFromLoopTask(SuspendingMinaConnector connector, SocketAddress second, Long timeoutMillis,
      Boolean thenOwn) {
    this.connector = connector;
    this.second = second;
    this.timeoutMillis = timeoutMillis;
    this.thenOwn = thenOwn;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    // A read whose reply is there before the session would suspend (the session's thread was
    // descheduled for the round trip) continues where the session ran: on a worker, for a
    // session the runner started there. Exchanged again until one suspends and is resumed by its
    // reply, on the processor; a bounded number of times.
    for (int i = 0; i < FIRST_EXCHANGES && (i == 0 || !EventLoopThread.inEventLoop()); i++) {
      transport.writeLine("first " + index);
      transport.flush();
      transport.readLineStrict(200);
    }
    String where = EventLoopThread.inEventLoop() ? "loop" : "elsewhere";
    LoopThread connectedOn = EventLoopThread.current();
    String result;
    try {
      Transport other = connector.connect(second, Timeout.of(timeoutMillis, TimeUnit.MILLISECONDS));
      try {
        other.writeLine("second " + index);
        other.flush();
        String echo = other.readLineStrict(200);
        boolean moved = connectedOn != null && EventLoopThread.current() != connectedOn;
        result = where + (moved ? " read on another loop" : "") + " connected " + echo;
      } finally {
        other.close();
      }
    } catch (IOException e) {
      result = where + " " + e.getClass().getSimpleName() + ": " + e.getMessage();
    }
    if (!thenOwn) {
      return result;
    }
    // The session's own transport still serves after the second connect, whatever it met.
    transport.writeLine("third " + index);
    transport.flush();
    return result + ", then " + transport.readLineStrict(200);
  }
}
