package io.weft.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A real {@code redis-server} on a free loopback port, persistence off, in its own temporary
 * directory. Ready once it answers {@code PING} with {@code +PONG}. Close it to stop it.
 *
 * <pre>{@code
 * Path binary = ServerBinaries.find(RedisServerProcess.BINARY);
 * try (RedisServerProcess redis = RedisServerProcess.start(binary)) { ... redis.address() ... }
 * }</pre>
 */
public final class RedisServerProcess extends ServerProcess {
  /** The program's name. */
  public static final String BINARY = "redis-server";
  /** The Debian package that provides it. */
  public static final String DEBIAN_PACKAGE = "redis-server";

  private static final Duration READY_WITHIN = Duration.ofSeconds(20);

  private RedisServerProcess(int port, Path directory) {
    super(BINARY, port, directory);
  }

  /** Starts {@code binary}, accepting up to 10,000 clients, and waits until it answers PING. */
  public static RedisServerProcess start(Path binary) throws IOException {
    return start(binary, 10_000);
  }

  /**
   * Starts {@code binary} accepting up to {@code maxClients} connections at once, and waits
   * until it answers PING. Redis lowers the figure, and logs so, when its open-file limit is
   * too small for it.
   */
  public static RedisServerProcess start(Path binary, int maxClients) throws IOException {
    if (maxClients < 1) {
      throw new IllegalArgumentException("maxClients < 1: " + maxClients);
    }
    int port = ServerBinaries.freeLoopbackPort();
    RedisServerProcess redis = new RedisServerProcess(port, Files.createTempDirectory("weft-redis-"));
    redis.start(List.of(binary.toString(),
        "--port", Integer.toString(port),
        "--bind", "127.0.0.1",
        "--save", "",
        "--appendonly", "no",
        "--daemonize", "no",
        "--dir", redis.directory().toString(),
        "--maxclients", Integer.toString(maxClients)), READY_WITHIN);
    return redis;
  }

  @Override
  protected boolean isReady() {
    try (Socket socket = new Socket()) {
      socket.connect(address(), 200);
      socket.setSoTimeout(1000);
      OutputStream out = socket.getOutputStream();
      out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      byte[] reply = in.readNBytes(7);
      return "+PONG\r\n".equals(new String(reply, StandardCharsets.US_ASCII));
    } catch (IOException e) {
      return false;
    }
  }
}
