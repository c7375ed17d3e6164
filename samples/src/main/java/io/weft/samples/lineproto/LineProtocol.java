package io.weft.samples.lineproto;

import io.weft.continuations.Mode;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.mina.SuspendingMinaConnector;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Shows: a protocol of your own ({@link CounterClient}) with its own exception type
 * ({@link CounterRefusedException}), caught by the caller: first in plain synchronous code, then
 * inside a task that the runner runs as 100 continuations ({@link AddTask}).
 *
 * <pre>
 * java io.weft.samples.lineproto.LineProtocol
 * </pre>
 *
 * <p>The counter server is the small thread-per-connection one below, on a free loopback port.
 */
public final class LineProtocol {
  private LineProtocol() {}

  /** Runs the sample; exits 1 if a session failed. */
  public static void main(String[] args) throws Exception {
    RunResult<String> result = run(System.out);
    System.exit(result.allSucceeded() ? 0 : 1);
  }

  /** Runs the synchronous part and the continuation run; prints and returns the latter. */
  public static RunResult<String> run(PrintStream out) throws Exception {
    try (ServerSocket server = startServer()) {
      InetSocketAddress address = (InetSocketAddress) server.getLocalSocketAddress();
      Timeout timeout = Timeout.of(2, TimeUnit.SECONDS);

      // Synchronous: the caller's thread waits; the refusal is an exception like any other.
      try (SocketConnector connector = new SocketConnector();
           Transport transport = connector.connect(address, timeout)) {
        CounterClient counter = new CounterClient(transport);
        out.println("ADD 5 -> total " + counter.add(5));
        try {
          counter.add(-5);
        } catch (CounterRefusedException e) {
          out.println("ADD -5 -> " + e.getClass().getSimpleName() + ", reason: " + e.reason());
        }
        counter.quit();
      }

      // The same client inside a task, as continuations: AddTask catches the refusal itself.
      try (SuspendingMinaConnector connector = SuspendingMinaConnector.tcp();
           SessionRunner runner = SessionRunner.builder()
               .mode(Mode.continuations(1))
               .connector(connector)
               .address(address)
               .timeout(timeout)
               .instrument("io.weft.samples.lineproto")
               .build()) {
        RunResult<String> result = runner.run(AddTask.class, 100);
        out.println(result);
        out.println("session 7 returned: " + result.outcome(7).value());
        return result;
      }
    }
  }

  /** The counter protocol's server: one thread per connection, one shared total. */
  static ServerSocket startServer() throws IOException {
    ServerSocket server = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
    AtomicLong total = new AtomicLong();
    Thread acceptor = new Thread(() -> {
      while (!server.isClosed()) {
        try {
          Socket socket = server.accept();
          Thread session = new Thread(() -> serve(socket, total), "counter-session");
          session.setDaemon(true);
          session.start();
        } catch (IOException closed) {
          return;
        }
      }
    }, "counter-acceptor");
    acceptor.setDaemon(true);
    acceptor.start();
    return server;
  }

  private static void serve(Socket socket, AtomicLong total) {
    try (socket;
         BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
         Writer reply = new java.io.OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8)) {
      for (String line; (line = in.readLine()) != null; reply.flush()) {
        if (line.equals("QUIT")) {
          reply.write("BYE\r\n");
          return;
        }
        long amount;
        try {
          amount = Long.parseLong(line.substring("ADD ".length()));
        } catch (RuntimeException e) {
          reply.write("ERR unknown request: " + line + "\r\n");
          continue;
        }
        reply.write(amount < 0 ? "ERR negative amount: " + amount + "\r\n" : "OK " + total.addAndGet(amount) + "\r\n");
      }
    } catch (IOException e) {
      // The client went away; nothing to tell anyone.
    }
  }
}
