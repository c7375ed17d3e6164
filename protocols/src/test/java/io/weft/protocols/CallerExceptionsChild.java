package io.weft.protocols;

import io.weft.continuations.Mode;
import io.weft.continuations.NotInstrumentableException;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.protocols.CallerExceptionTypesTest.EveryClient;
import io.weft.protocols.CallerExceptionTypesTest.Request;
import io.weft.protocols.callers.PgConnectTask;
import io.weft.protocols.callers.RedisCallTask;
import io.weft.protocols.callers.SmtpGreetingTask;
import io.weft.protocols.pg.PgException;
import io.weft.protocols.redis.RedisErrorException;
import io.weft.protocols.smtp.SmtpReplyException;
import io.weft.transport.Connector;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.mina.SuspendingMinaConnector;
import io.weft.transport.netty.SuspendingNettyConnector;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * {@link CallerExceptionTypesRoutesTest}'s child JVM, whose callers' and protocol clients' classes
 * were rewritten before they reach this code's loader, by Weft's {@code -javaagent} or by the {@code
 * Rewrite} tool's output ahead on the class path: every exception type the protocol clients throw,
 * from sessions run with {@code alreadyRewritten()} (which refuses a task that was not rewritten),
 * in continuations(1) and (2) over both suspending connectors. Prints one line per case and type:
 * how many sessions ended with exactly the class this code names, and the first other ending.
 */
public final class CallerExceptionsChild {
  private CallerExceptionsChild() {}

  public static void main(String[] args) throws Exception {
    int sessions = Integer.parseInt(args[0]);
    System.out.println("SmtpClient loaded by " + io.weft.protocols.smtp.SmtpClient.class.getClassLoader().getName());
    for (String transport : new String[] {"MINA", "Netty"}) {
      Supplier<Connector> connector = transport.equals("MINA") ? SuspendingMinaConnector::tcp
          : SuspendingNettyConnector::tcp;
      for (int workers = 1; workers <= 2; workers++) {
        String name = "CONTINUATIONS(" + workers + ")/" + transport;
        Mode mode = Mode.continuations(workers);
        print(name, SmtpReplyException.class, run(mode, connector, SmtpGreetingTask.class, sessions,
            in -> CallerExceptionTypesTest.lines(in, 0), "554 5.3.2 no service\r\n", SmtpReplyException.class));
        print(name, RedisErrorException.class, run(mode, connector, RedisCallTask.class, sessions,
            in -> CallerExceptionTypesTest.lines(in, 3), "-ERR boom\r\n", RedisErrorException.class));
        print(name, ProtocolViolationException.class, run(mode, connector, RedisCallTask.class, sessions,
            in -> CallerExceptionTypesTest.lines(in, 3), "?x\r\n", ProtocolViolationException.class));
        print(name, PgException.class, run(mode, connector, PgConnectTask.class, sessions,
            CallerExceptionTypesTest::startupMessage, CallerExceptionTypesTest.pgRefusal(), PgException.class));
      }
    }
  }

  private static void print(String name, Class<?> type, String what) {
    System.out.println(name + " " + type.getSimpleName() + ": " + what);
  }

  /**
   * "N of M the caller's class": sessions whose failure is exactly the class {@code expected} as this
   * code names it (so also what a {@code catch} of it tests); then the first session that ended
   * otherwise, if any.
   */
  private static String run(Mode mode, Supplier<Connector> connectors, Class<? extends SessionTask<?>> task,
      int sessions, Request request, String reply, Class<? extends Throwable> expected) throws Exception {
    Connector connector = connectors.get();
    try (EveryClient server = new EveryClient(request, reply);
         SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector)
             .address(server.address()).timeout(Timeout.of(20, TimeUnit.SECONDS)).alreadyRewritten().build()) {
      @SuppressWarnings("unchecked")
      Class<? extends SessionTask<Object>> type = (Class<? extends SessionTask<Object>>) task;
      RunResult<Object> result;
      try {
        result = runner.run(type, sessions);
      } catch (NotInstrumentableException e) {
        return "refused: " + e.getMessage();
      }
      int callers = 0;
      String other = null;
      for (int i = 0; i < sessions; i++) {
        Outcome<Object> o = result.outcome(i);
        Throwable f = o.failure();
        // exactly the class this code names (a failure of that class is also what a catch of it takes)
        if (f != null && f.getClass() == expected) {
          callers++;
        } else if (other == null) {
          other = "; first other: session " + i + " " + o
              + (f == null ? "" : " (" + f.getClass().getName() + " from loader " + f.getClass().getClassLoader() + ")");
        }
      }
      return callers + " of " + sessions + " the caller's class" + (other == null ? "" : other);
    } finally {
      if (connector instanceof AutoCloseable) {
        ((AutoCloseable) connector).close();
      }
    }
  }
}
