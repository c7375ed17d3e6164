package io.weft.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;

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

  /** For a TLS server: the client context its readiness check trusts; null for plaintext. */
  private final SSLContext tlsClient;

  private RedisServerProcess(int port, Path directory, SSLContext tlsClient) {
    super(BINARY, port, directory);
    this.tlsClient = tlsClient;
  }

  /**
   * Starts {@code binary} serving TLS only ({@code --port 0 --tls-port}), presenting
   * {@code certificate}, and waits until it answers PING over TLS with a client that trusts
   * {@code trustedBy}. Client certificates are not asked for ({@code --tls-auth-clients no}).
   * Debian's redis-server links OpenSSL and has TLS built in.
   */
  public static RedisServerProcess startTls(Path binary, TestPki.Issued certificate, SSLContext trustedBy)
      throws IOException {
    int port = ServerBinaries.freeLoopbackPort();
    RedisServerProcess redis = new RedisServerProcess(port, Files.createTempDirectory("weft-redis-tls-"), trustedBy);
    TestPki.PemFiles pem = certificate.writePem(redis.directory(), "server");
    redis.start(List.of(binary.toString(),
        "--port", "0",
        "--tls-port", Integer.toString(port),
        "--tls-cert-file", pem.certificate.toString(),
        "--tls-key-file", pem.key.toString(),
        "--tls-auth-clients", "no",
        "--bind", "127.0.0.1",
        "--save", "",
        "--appendonly", "no",
        "--daemonize", "no",
        "--dir", redis.directory().toString(),
        "--maxclients", "10000"), READY_WITHIN);
    return redis;
  }

  /** Starts {@code binary}, accepting up to 10,000 clients, and waits until it answers PING. */
  public static RedisServerProcess start(Path binary) throws IOException {
    return start(binary, List.of());
  }

  /**
   * Starts {@code binary} with {@code extraArguments} after the defaults (a later option wins,
   * e.g. {@code --maxclients 20000}, {@code --tcp-backlog 4096}), and waits until it answers
   * PING. Redis lowers {@code maxclients}, and logs so, when its open-file limit is too small.
   */
  public static RedisServerProcess start(Path binary, List<String> extraArguments) throws IOException {
    int port = ServerBinaries.freeLoopbackPort();
    RedisServerProcess redis = new RedisServerProcess(port, Files.createTempDirectory("weft-redis-"), null);
    List<String> command = new ArrayList<>(List.of(binary.toString(),
        "--port", Integer.toString(port),
        "--bind", "127.0.0.1",
        "--save", "",
        "--appendonly", "no",
        "--daemonize", "no",
        "--dir", redis.directory().toString(),
        "--maxclients", "10000"));
    command.addAll(extraArguments);
    redis.start(command, READY_WITHIN);
    return redis;
  }

  @Override
  protected boolean isReady() {
    try (Socket plain = new Socket()) {
      plain.connect(address(), 200);
      plain.setSoTimeout(1000);
      Socket socket = tlsClient == null ? plain
          : tlsClient.getSocketFactory().createSocket(plain, "localhost", port(), true);
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
