package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.ServerSetupTest;
import com.sun.net.httpserver.HttpServer;
import io.weft.continuations.ConnectWindow;
import io.weft.testsupport.RedisServerProcess;
import java.io.File;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The built-in scenarios against real servers: redis-server, the JDK's HTTP server, GreenMail. */
class BuiltInScenariosTest {
  @RegisterExtension
  static final GreenMailExtension GREEN_MAIL = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort());

  @TempDir Path dir;

  @Test
  void redisTimesEachCommandOfTheListByName() throws Exception {
    try (RedisServerProcess redis = RedisServerProcess.start(Runs.binary(RedisServerProcess.BINARY, RedisServerProcess.DEBIAN_PACKAGE))) {
      Runs r = Runs.run(new File(dir.toFile(), "redis"), "redis", "-t", "127.0.0.1:" + redis.port(),
          "--mode", "continuations:1", "-u", "3", "-n", "10", "-c", "SET k v", "-c", "GET k", "-c", "NOSUCHCOMMAND", "-q");
      assertEquals(0, r.exit, r::toString);
      JsonNode s = r.summary();
      assertEquals(30, s.at("/operations/SET/count").asLong(), r::toString);
      assertEquals(30, s.at("/operations/GET/count").asLong(), r::toString);
      // An error reply is an error of its command, by type; the user goes on.
      assertEquals(30, s.at("/operations/NOSUCHCOMMAND/errors/io.weft.protocols.redis.RedisErrorException").asLong(), r::toString);
    }
  }

  @Test
  void redisPipelinedSendsTheListDepthTimesPerIteration() throws Exception {
    try (RedisServerProcess redis = RedisServerProcess.start(Runs.binary(RedisServerProcess.BINARY, RedisServerProcess.DEBIAN_PACKAGE))) {
      Runs r = Runs.run(new File(dir.toFile(), "pipeline"), "redis", "-t", "127.0.0.1:" + redis.port(),
          "--mode", "threads", "-u", "2", "-n", "5", "-c", "INCR n", "-P", "16", "-q");
      assertEquals(0, r.exit, r::toString);
      assertEquals(2 * 5 * 16, r.summary().at("/operations/INCR/count").asLong(), r::toString);
    }
  }

  @Test
  void httpWithAndWithoutKeepAlive() throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
    AtomicInteger connections = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    server.setExecutor(pool);
    byte[] body = "hello".getBytes(StandardCharsets.UTF_8);
    server.createContext("/", exchange -> {
      int status = exchange.getRequestURI().getPath().equals("/missing") ? 404 : 200;
      exchange.sendResponseHeaders(status, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    try {
      String target = "127.0.0.1:" + server.getAddress().getPort();
      Runs keep = Runs.run(new File(dir.toFile(), "keep"), "http", "-t", target, "--mode", "continuations:1",
          "-u", "2", "-n", "10", "-H", "X-Test: 1", "-q");
      assertEquals(0, keep.exit, keep::toString);
      assertEquals(20, keep.summary().at("/operations/GET/count").asLong(), keep::toString);
      assertEquals(0, keep.summary().at("/errors").asLong(), keep::toString);
      // Many HTTP servers are Java ones with a backlog of 50 (this one's is 100): the http command's
      // window grows to 48 at most unless told, as the runner's default does.
      assertTrue(keep.summary().at("/info/connect window").asText().startsWith(ConnectWindow.DEFAULT.toString()),
          keep::toString);
      Runs deep = Runs.run(new File(dir.toFile(), "deep"), "http", "-t", target, "--mode", "continuations:1",
          "-u", "2", "-n", "1", "--connect-window-max", "256", "-q");
      assertEquals(0, deep.exit, deep::toString);
      assertTrue(deep.summary().at("/info/connect window").asText()
          .startsWith(ConnectWindow.DEFAULT.growingTo(256).toString()), deep::toString);

      Runs close = Runs.run(new File(dir.toFile(), "close"), "http", "-t", target, "--mode", "threads",
          "-u", "2", "-n", "10", "--no-keep-alive", "--path", "/missing", "-q");
      assertEquals(0, close.exit, close::toString);
      JsonNode get = close.summary().at("/operations/GET");
      assertEquals(20, get.at("/count").asLong(), close::toString);
      assertEquals(20, get.at("/errors/HTTP_404").asLong(), close::toString);
    } finally {
      server.stop(0);
      pool.shutdownNow();
    }
  }

  @Test
  void smtpSendsOneMessageOfTheGivenSizePerIteration() throws Exception {
    int port = GREEN_MAIL.getSmtp().getPort();
    Runs r = Runs.run(new File(dir.toFile(), "smtp"), "smtp", "-t", "127.0.0.1:" + port, "--mode", "continuations:1",
        "-u", "2", "-n", "3", "--size", "2000", "-q");
    assertEquals(0, r.exit, r::toString);
    JsonNode s = r.summary();
    assertEquals(6, s.at("/operations/send/count").asLong(), r::toString);
    assertEquals(2, s.at("/operations/hello/count").asLong(), r::toString);
    assertEquals(6, GREEN_MAIL.getReceivedMessages().length);
  }
}
