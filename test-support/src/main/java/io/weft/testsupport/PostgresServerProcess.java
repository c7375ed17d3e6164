package io.weft.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server on a free loopback port, made for a test by {@code initdb} in its own
 * temporary directory (its unix socket there too), with TLS from a test certificate and one user
 * per authentication method:
 *
 * <table>
 *   <caption>The users (password = user name + "-pw")</caption>
 *   <tr><th>user</th><th>over TCP</th></tr>
 *   <tr><td>{@value #TRUST_USER}</td><td>trust</td></tr>
 *   <tr><td>{@value #CLEARTEXT_USER}</td><td>cleartext password</td></tr>
 *   <tr><td>{@value #MD5_USER}</td><td>md5 (an MD5-hashed password)</td></tr>
 *   <tr><td>{@value #SCRAM_USER}</td><td>scram-sha-256</td></tr>
 *   <tr><td>{@value #TLS_USER}</td><td>scram-sha-256, over TLS only</td></tr>
 *   <tr><td>{@value #CERT_USER}</td><td>a client certificate issued by the test CA, over TLS only</td></tr>
 * </table>
 *
 * <p>{@code initdb} refuses to run as root, and CI runs as root: then initdb and the server run
 * as the unprivileged {@code postgres} user (Debian's package makes it), or {@code nobody}, through
 * {@code runuser}, and the directory is handed to that user. Close it to stop the server and
 * delete the directory. Start one per test class (initdb takes a few seconds).
 */
public final class PostgresServerProcess extends ServerProcess {
  /** The program that must be found (in {@code /usr/lib/postgresql/NN/bin} or on PATH). */
  public static final String BINARY = "initdb";
  /** The Debian package that provides it. */
  public static final String DEBIAN_PACKAGE = "postgresql";
  /** Trusted without a password. */
  public static final String TRUST_USER = "weft_trust";
  /** Sends its password in cleartext. */
  public static final String CLEARTEXT_USER = "weft_clear";
  /** Sends its password MD5-hashed. */
  public static final String MD5_USER = "weft_md5";
  /** Authenticates with SCRAM-SHA-256. */
  public static final String SCRAM_USER = "weft_scram";
  /** SCRAM-SHA-256, and only over TLS. */
  public static final String TLS_USER = "weft_tls";
  /** Authenticates with a client certificate whose common name is the user's name. */
  public static final String CERT_USER = "weft_cert";
  /** The database every user may use. */
  public static final String DATABASE = "weft";

  private static final Duration READY_WITHIN = Duration.ofSeconds(60);
  private static final String SUPERUSER = "postgres";

  private final Path bin;
  private final String runAs;
  private final Path socketDir;

  private PostgresServerProcess(Path bin, int port, Path directory, String runAs) {
    super("postgres", port, directory);
    this.bin = bin;
    this.runAs = runAs;
    this.socketDir = directory.resolve("socket");
  }

  /** The password of {@code user}, as this server's users were made. */
  public static String password(String user) {
    return user + "-pw";
  }

  /**
   * The directory of PostgreSQL's programs: the newest {@code /usr/lib/postgresql/NN/bin} with
   * an {@code initdb}, else the directory of an {@code initdb} on PATH; null if there is none.
   */
  public static Path findBinDirectory() {
    Path debian = Path.of("/usr/lib/postgresql");
    if (Files.isDirectory(debian)) {
      try (Stream<Path> versions = Files.list(debian)) {
        Path newest = versions.filter(v -> Files.isExecutable(v.resolve("bin").resolve(BINARY)))
            .max(Comparator.comparingInt(PostgresServerProcess::version)).orElse(null);
        if (newest != null) {
          return newest.resolve("bin");
        }
      } catch (IOException e) {
        // Falls back to PATH.
      }
    }
    Path initdb = ServerBinaries.find(BINARY);
    if (initdb == null) {
      return null;
    }
    try {
      return initdb.toRealPath().getParent();
    } catch (IOException e) {
      return initdb.getParent();
    }
  }

  private static int version(Path dir) {
    try {
      return Integer.parseInt(dir.getFileName().toString());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Makes a cluster with {@code initdb}, starts {@code postgres} on a free loopback port with TLS
   * presenting {@code certificate}, waits until it is ready and creates the users and database.
   *
   * Client certificates are checked against {@code pki}'s CA.
   *
   * @param bin the directory of PostgreSQL's programs ({@link #findBinDirectory()})
   * @param pki the CA that issues the server's certificate (for localhost and 127.0.0.1)
   */
  public static PostgresServerProcess start(Path bin, TestPki pki) throws IOException {
    String runAs = isRoot() ? unprivilegedUser() : null;
    Path directory = Files.createTempDirectory("weft-pg-");
    PostgresServerProcess pg = new PostgresServerProcess(bin, ServerBinaries.freeLoopbackPort(), directory, runAs);
    try {
      pg.initialize(pki);
    } catch (IOException | RuntimeException e) {
      pg.close();
      throw e;
    }
    return pg;
  }

  private void initialize(TestPki pki) throws IOException {
    Path data = directory().resolve("data");
    Files.createDirectories(socketDir);
    TestPki.PemFiles pem = pki.issue(TestPki.localhost()).writePem(directory(), "server");
    Path ca = directory().resolve("ca.crt");
    Files.writeString(ca, pki.caPem(), StandardCharsets.US_ASCII);
    Files.setPosixFilePermissions(pem.key, PosixFilePermissions.fromString("rw-------"));
    if (runAs != null) {
      UserPrincipal owner = directory().getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(runAs);
      for (Path p : List.of(directory(), socketDir, pem.certificate, pem.key, ca)) {
        Files.setOwner(p, owner);
      }
    }
    run(command(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", SUPERUSER, "-A", "trust",
        "-E", "UTF8", "--locale=C", "--no-sync"), Duration.ofSeconds(120));
    Files.writeString(data.resolve("pg_hba.conf"), String.join("\n",
        "local all all trust",
        "hostnossl all " + TLS_USER + " 127.0.0.1/32 reject",
        "hostssl all " + CERT_USER + " 127.0.0.1/32 cert",
        "host all " + CERT_USER + " 127.0.0.1/32 reject",
        "host all " + SUPERUSER + " 127.0.0.1/32 trust",
        "host all " + TRUST_USER + " 127.0.0.1/32 trust",
        "host all " + CLEARTEXT_USER + " 127.0.0.1/32 password",
        "host all " + MD5_USER + " 127.0.0.1/32 md5",
        "host all all 127.0.0.1/32 scram-sha-256",
        ""), StandardCharsets.UTF_8);
    start(command(bin.resolve("postgres").toString(), "-D", data.toString(),
        "-p", Integer.toString(port()),
        "-c", "listen_addresses=127.0.0.1",
        "-c", "unix_socket_directories=" + socketDir,
        "-c", "ssl=on",
        "-c", "ssl_cert_file=" + pem.certificate,
        "-c", "ssl_key_file=" + pem.key,
        "-c", "ssl_ca_file=" + ca,
        "-c", "fsync=off",
        "-c", "synchronous_commit=off",
        "-c", "full_page_writes=off",
        "-c", "max_connections=1200",
        "-c", "shared_buffers=32MB",
        "-c", "log_min_messages=warning"), READY_WITHIN);
    StringBuilder sql = new StringBuilder();
    sql.append("SET password_encryption = 'md5';\n");
    sql.append(createUser(MD5_USER));
    sql.append("SET password_encryption = 'scram-sha-256';\n");
    for (String user : List.of(TRUST_USER, CLEARTEXT_USER, SCRAM_USER, TLS_USER, CERT_USER)) {
      sql.append(createUser(user));
    }
    sql.append("CREATE DATABASE ").append(DATABASE).append(";\n");
    sql.append("GRANT ALL ON DATABASE ").append(DATABASE).append(" TO PUBLIC;\n");
    psql("postgres", sql.toString());
    psql(DATABASE, "GRANT ALL ON SCHEMA public TO PUBLIC;\n");
  }

  private static String createUser(String user) {
    return "CREATE ROLE " + user + " LOGIN PASSWORD '" + password(user) + "';\n";
  }

  /** Runs {@code sql} as the superuser over the unix socket with {@code psql}, stopping at the first error. */
  public void psql(String database, String sql) throws IOException {
    Path script = directory().resolve("script-" + System.nanoTime() + ".sql");
    Files.writeString(script, sql, StandardCharsets.UTF_8);
    run(List.of(bin.resolve("psql").toString(), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", socketDir.toString(),
        "-p", Integer.toString(port()), "-U", SUPERUSER, "-d", database, "-f", script.toString()),
        Duration.ofSeconds(60));
  }

  private List<String> command(String... args) {
    List<String> command = new ArrayList<>();
    if (runAs != null) {
      command.addAll(List.of("runuser", "-u", runAs, "--"));
    }
    command.addAll(List.of(args));
    return command;
  }

  private void run(List<String> command, Duration within) throws IOException {
    Path out = directory().resolve("command.log");
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    try {
      if (!p.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new IOException(command + " did not finish within " + within);
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted running " + command, e);
    }
    if (p.exitValue() != 0) {
      throw new IOException(command + " exited with " + p.exitValue() + ":\n" + Files.readString(out));
    }
  }

  /** Ready once the postmaster says so in its pid file (a TCP accept comes before that). */
  @Override
  protected boolean isReady() {
    try {
      List<String> lines = Files.readAllLines(directory().resolve("data").resolve("postmaster.pid"));
      return lines.size() >= 8 && lines.get(7).trim().equals("ready");
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  private static String unprivilegedUser() throws IOException {
    for (String user : List.of("postgres", "nobody")) {
      try {
        Process p = new ProcessBuilder("id", "-u", user).redirectErrorStream(true).start();
        if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0) {
          return user;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted looking up " + user, e);
      }
    }
    throw new IOException("running as root, and neither 'postgres' nor 'nobody' exists to run initdb as");
  }
}
