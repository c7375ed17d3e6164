package io.weft.samples.http;

import com.sun.net.httpserver.HttpServer;
import io.weft.continuations.Mode;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.transport.Timeout;
import io.weft.transport.mina.SuspendingMinaConnector;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Shows: many URLs fetched from a local HTTP server in continuation mode, with Weft's HTTP/1.1
 * client, on one worker thread; the paths go to the task as a constructor argument.
 *
 * <pre>
 * java io.weft.samples.http.HttpFetch [urls] [per-connection]          (defaults: 2000 20)
 * </pre>
 *
 * <p>The server is the JDK's own {@code HttpServer}, started here on a free loopback port with
 * a listen backlog of 1,024. With 0 it would get the JDK's default of 50, and connects would
 * time out once many more sessions than that open at once (see docs/many-sessions.md).
 */
public final class HttpFetch {
  private HttpFetch() {}

  /** Runs the sample; exits 1 if a session failed. */
  public static void main(String[] args) throws Exception {
    int urls = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    int perConnection = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    RunResult<Long> result = run(urls, perConnection, System.out);
    System.exit(result.allSucceeded() ? 0 : 1);
  }

  /** Serves {@code urls} pages, fetches them all, prints and returns the run's result. */
  public static RunResult<Long> run(int urls, int perConnection, PrintStream out) throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
    server.createContext("/item/", exchange -> {
      byte[] body = ("this is " + exchange.getRequestURI().getPath() + "\n").getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream stream = exchange.getResponseBody()) {
        stream.write(body);
      }
    });
    ExecutorService serverThreads = Executors.newFixedThreadPool(4);
    server.setExecutor(serverThreads);
    server.start();
    try (SuspendingMinaConnector connector = SuspendingMinaConnector.tcp();
         SessionRunner runner = SessionRunner.builder()
             .mode(Mode.continuations(1))
             .connector(connector)
             .address(server.getAddress())
             .timeout(Timeout.of(5, TimeUnit.SECONDS))
             .instrument("io.weft.samples.http", "io.weft.protocols")
             .build()) {
      List<String> paths = new ArrayList<>();
      for (int i = 0; i < urls; i++) {
        paths.add("/item/" + i);
      }
      int sessions = (urls + perConnection - 1) / perConnection;
      String host = "127.0.0.1:" + server.getAddress().getPort();
      RunResult<Long> result = runner.run(FetchTask.class, sessions, host, paths, perConnection);
      long bytes = result.values().stream().mapToLong(Long::longValue).sum();
      out.printf("%s: %d URLs over %d connections, %d bytes, %d failed, %.1f ms%n", result.mode(), urls,
          result.sessions(), bytes, result.failures().size(), result.wallNanos() / 1e6);
      if (!result.allSucceeded()) {
        out.println("  first failure: " + result.failures().get(0));
      }
      return result;
    } finally {
      server.stop(0);
      serverThreads.shutdownNow();
    }
  }
}
