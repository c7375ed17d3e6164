package io.weft.load.scenario.builtin;

import io.weft.load.record.OpRecorder;
import io.weft.load.scenario.Scenario;
import io.weft.protocols.pg.PgClient;
import io.weft.protocols.pg.PgException;
import io.weft.protocols.pg.PgOptions;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * PostgreSQL: each virtual user connects once ({@code CONNECT}, timed: TLS and authentication
 * included) and each iteration runs the query list in order. The list is {@code queries} (one
 * statement per line) or the file {@code file} (one statement per non-empty line; lines starting
 * with {@code --} are comments); default {@code SELECT 1}. Each statement runs with the extended
 * protocol, or the simple one when {@code simple} is true (for lines holding several statements).
 * An operation is named by the statement's first word ({@code SELECT}); a statement the server
 * refuses counts as an error of that operation by its SQLSTATE ({@code SQLSTATE_42P01}), and the
 * user carries on on the same connection.
 *
 * <p>Parameters: {@code user} (default {@code postgres}), {@code password}, {@code database}
 * (default the user), {@code tls} ({@code disable}, {@code prefer}, {@code require}; default
 * {@code disable}), {@code caFile} (a PEM file of the CA to trust; default the JDK's trust store),
 * {@code serverName} (the name the server's certificate must carry, when it is not the target's).
 */
public final class PgScenario implements Scenario {
  private final PgOptions options;
  private final String[] statements;
  private final String[] names;
  private final boolean simple;
  private PgClient pg;

  public PgScenario(Map<String, String> params) {
    String user = Params.string(params, "user", "postgres");
    PgOptions.Builder b = PgOptions.builder(user).database(Params.string(params, "database", user));
    String password = params.get("password");
    if (password != null) {
      b.password(password);
    }
    PgOptions.TlsMode tls = PgOptions.TlsMode.valueOf(Params.string(params, "tls", "disable").toUpperCase(Locale.ROOT));
    TlsSettings.Builder settings = TlsSettings.builder();
    if (params.containsKey("caFile")) {
      settings.trustPem(Path.of(params.get("caFile")));
    }
    if (params.containsKey("serverName")) {
      settings.serverName(params.get("serverName"));
    }
    this.options = b.tls(tls, settings.build()).build();
    List<String> list = statements(params);
    if (list.isEmpty()) {
      throw new IllegalArgumentException("no statements: the queries and the file are empty");
    }
    this.statements = list.toArray(new String[0]);
    this.names = new String[statements.length];
    for (int i = 0; i < names.length; i++) {
      names[i] = statements[i].split("\\s+", 2)[0].toUpperCase(Locale.ROOT);
    }
    this.simple = Params.bool(params, "simple", false);
  }

  private static List<String> statements(Map<String, String> params) {
    String text = Params.string(params, "queries", "SELECT 1");
    String file = params.get("file");
    if (file != null) {
      try {
        text = Files.readString(Path.of(file), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the query file " + file, e);
      }
    }
    List<String> list = new ArrayList<>();
    for (String line : text.split("\n")) {
      String s = line.trim();
      if (!s.isEmpty() && !s.startsWith("--")) {
        list.add(s);
      }
    }
    return list;
  }

  @Override
  public void connected(Transport transport, OpRecorder ops) throws Exception {
    OpRecorder.Timer t = ops.start("CONNECT");
    pg = PgClient.connect(transport, options);
    t.stop();
  }

  @Override
  public void iteration(OpRecorder ops) throws Exception {
    for (int i = 0; i < statements.length; i++) {
      long start = ops.start();
      try {
        if (simple) {
          pg.simpleQuery(statements[i]);
        } else {
          pg.query(statements[i]);
        }
        ops.stop(names[i], start);
      } catch (PgException e) {
        // The server refused the statement and is ready for the next: an outcome, not a failure of the user.
        ops.error(names[i], "SQLSTATE_" + e.sqlState());
      }
    }
  }
}
