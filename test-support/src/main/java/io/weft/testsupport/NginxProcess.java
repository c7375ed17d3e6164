package io.weft.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A real {@code nginx} in the foreground on a free loopback port, configured from a template
 * the test keeps in its resources, with its prefix, logs and document root in a temporary
 * directory. Close it to stop it.
 *
 * <p>The template may use these placeholders, each replaced before nginx reads the file:
 * <ul>
 *   <li>{@code ${PORT}}: the port to listen on (at 127.0.0.1);
 *   <li>{@code ${PREFIX}}: the temporary directory (also nginx's {@code -p} prefix);
 *   <li>{@code ${ROOT}}: the document root, {@code ${PREFIX}/html}, filled by the caller;
 *   <li>{@code ${USER}}: a {@code user root;} line when running as root (so worker processes
 *       can read the private temporary directory), otherwise nothing;
 *   <li>{@code ${TLS_CERT}} and {@code ${TLS_KEY}}: with a certificate given, the PEM files of
 *       its chain and key, for {@code listen ... ssl;} with {@code ssl_certificate} and
 *       {@code ssl_certificate_key}.
 * </ul>
 */
public final class NginxProcess extends ServerProcess {
  /** The program's name. */
  public static final String BINARY = "nginx";
  /** The Debian package that provides it ({@code nginx} also does). */
  public static final String DEBIAN_PACKAGE = "nginx-light";

  private static final Duration READY_WITHIN = Duration.ofSeconds(20);

  private NginxProcess(int port, Path directory) {
    super(BINARY, port, directory);
  }

  /**
   * Writes {@code configTemplate} with its placeholders filled, puts {@code files} (relative
   * path to content) under the document root, starts {@code binary}, and waits until it
   * accepts connections.
   */
  public static NginxProcess start(Path binary, String configTemplate, Map<String, byte[]> files)
      throws IOException {
    return start(binary, configTemplate, files, null);
  }

  /**
   * As {@link #start(Path, String, Map)}, with {@code certificate} written as PEM files for the
   * {@code ${TLS_CERT}} and {@code ${TLS_KEY}} placeholders (a TLS server: Debian's nginx has
   * the ssl module). Readiness is still a TCP accept, which an ssl listener gives.
   */
  public static NginxProcess start(Path binary, String configTemplate, Map<String, byte[]> files,
      TestPki.Issued certificate) throws IOException {
    int port = ServerBinaries.freeLoopbackPort();
    Path prefix = Files.createTempDirectory("weft-nginx-");
    NginxProcess nginx = new NginxProcess(port, prefix);
    try {
      Path root = Files.createDirectories(prefix.resolve("html"));
      for (Map.Entry<String, byte[]> file : files.entrySet()) {
        Path target = root.resolve(file.getKey()).normalize();
        if (!target.startsWith(root)) {
          throw new IllegalArgumentException("file outside the document root: " + file.getKey());
        }
        Files.createDirectories(target.getParent());
        Files.write(target, file.getValue());
      }
      Files.createDirectories(prefix.resolve("logs"));
      String tlsCert = "";
      String tlsKey = "";
      if (certificate != null) {
        TestPki.PemFiles pem = certificate.writePem(Files.createDirectories(prefix.resolve("tls")), "server");
        tlsCert = pem.certificate.toString();
        tlsKey = pem.key.toString();
      }
      String config = configTemplate
          .replace("${TLS_CERT}", tlsCert)
          .replace("${TLS_KEY}", tlsKey)
          .replace("${PORT}", Integer.toString(port))
          .replace("${PREFIX}", prefix.toString())
          .replace("${ROOT}", root.toString())
          .replace("${USER}", "root".equals(System.getProperty("user.name")) ? "user root;" : "");
      Path conf = prefix.resolve("nginx.conf");
      Files.writeString(conf, config, StandardCharsets.UTF_8);
      Path errorLog = prefix.resolve("logs/error.log");
      nginx.start(List.of(binary.toString(),
          "-p", prefix.toString(),
          "-c", conf.toString(),
          "-e", errorLog.toString(),
          "-g", "daemon off; master_process on; pid " + prefix.resolve("nginx.pid") + ";"), READY_WITHIN);
      return nginx;
    } catch (IOException | RuntimeException e) {
      nginx.close();
      throw e;
    }
  }
}
