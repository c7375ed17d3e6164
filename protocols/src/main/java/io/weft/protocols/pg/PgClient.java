package io.weft.protocols.pg;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.Transport;
import io.weft.transport.binary.Binary;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLException;

/**
 * A PostgreSQL client (frontend/backend protocol 3.0) over one {@link Transport}: TLS through
 * SSLRequest, trust/cleartext/MD5/SCRAM-SHA-256(-PLUS) authentication, the simple and the
 * extended query protocols with text parameters and text results, typed errors, cancellation.
 * Not thread-safe: one client per session.
 *
 * <pre>{@code
 * PgClient pg = PgClient.connect(transport, PgOptions.builder("app").password(secret)
 *     .tls(TlsMode.REQUIRE, TlsSettings.builder().trustPem(caFile).build()).build());
 * PgResult r = pg.query("SELECT name FROM users WHERE id = $1", "42");
 * pg.close();
 * }</pre>
 *
 * <p>Lifecycle: {@link #connect} negotiates TLS, authenticates and reads the server's parameters
 * and key up to its first ReadyForQuery. Then any number of {@link #simpleQuery} and
 * {@link #query} calls, each ending at the server's ReadyForQuery. {@link #close()} sends
 * Terminate and closes the transport.
 *
 * <p>Errors: an ErrorResponse to a statement is a {@link PgException} with the SQLSTATE, thrown
 * once the server is ready again, so the client carries on with the next statement. A result
 * over {@link PgOptions#rowLimit()} is read to its end, kept nowhere, and reported the same way.
 * A protocol violation, an I/O failure or a timeout leaves the connection without framing: the
 * transport is closed and every later call throws {@link IllegalStateException}; after a FATAL
 * error the server closes the connection. Memory follows the bytes the
 * server sent: a message's claimed length is checked against {@link PgOptions#messageLimit()} and
 * its buffer grows only as its bytes arrive.
 */
public final class PgClient implements Closeable {
  /** Notices kept for {@link #takeNotices()}; older ones are dropped. */
  static final int NOTICES_KEPT = 100;

  private final Transport transport;
  private final PgOptions options;
  private final Backend in;
  private final Map<String, String> parameters = new LinkedHashMap<>();
  private final ArrayDeque<PgNotice> notices = new ArrayDeque<>();
  private int processId;
  private int secretKey;
  private char transactionStatus = 'I';
  private String broken;
  /** True from a ReadyForQuery until the next statement is sent: the framing is known. */
  private boolean ready;

  private PgClient(Transport transport, PgOptions options) {
    this.transport = transport;
    this.options = options;
    this.in = new Backend(transport, options.messageLimit());
  }

  /**
   * Opens a session on {@code transport}: TLS as {@code options} say, the StartupMessage,
   * authentication, then the server's parameters and key up to its first ReadyForQuery.
   *
   * @param transport a connected plaintext transport to the server
   * @param options who to connect as and how
   * @return the ready client
   * @throws SSLException if TLS is required and the server refuses it
   * @throws PgException if the server refuses the session (authentication, no such database)
   * @throws IOException if the transport fails or the server breaks the protocol; the transport
   *     is then closed
   */
  public static PgClient connect(Transport transport, PgOptions options) throws IOException {
    PgClient client = new PgClient(transport, options);
    try {
      client.startup();
    } catch (IOException | RuntimeException e) {
      transport.close();
      throw e;
    }
    return client;
  }

  private void startup() throws IOException {
    negotiateTls(transport, options);
    Map<String, String> startup = new LinkedHashMap<>();
    startup.put("user", options.user());
    startup.put("database", options.database());
    startup.put("client_encoding", "UTF8");
    startup.putAll(options.parameters());
    Frontend.startup(transport, startup);
    transport.flush();
    new Authentication(transport, in, options, this::keep).run();
    for (;;) {
      int type = in.next();
      switch (type) {
        case 'S':
          parameterStatus();
          break;
        case 'K':
          processId = in.int32();
          secretKey = in.int32();
          in.end();
          break;
        case 'N':
          keep(new PgNotice(in.fields()));
          break;
        case 'E':
          throw new PgException(in.fields());
        case 'Z':
          readyForQuery();
          return;
        default:
          throw in.unexpected("after authentication");
      }
    }
  }

  /** SSLRequest and the upgrade, as {@code options} say; nothing when TLS is off. */
  private static void negotiateTls(Transport transport, PgOptions options) throws IOException {
    if (options.tlsMode() == PgOptions.TlsMode.DISABLE) {
      return;
    }
    Frontend.sslRequest(transport);
    transport.flush();
    int answer = Binary.readUnsignedByte(transport);
    if (answer == 'S') {
      // startTls refuses plaintext bytes that came after the 'S' (a man in the middle's injection).
      transport.startTls(options.tls());
    } else if (answer == 'N') {
      if (options.tlsMode() == PgOptions.TlsMode.REQUIRE) {
        throw new SSLException("the server refused TLS (it answered SSLRequest with 'N') and TLS is required");
      }
    } else {
      throw new ProtocolViolationException("SSLRequest answered with '" + Backend.printable(answer)
          + "' instead of 'S' or 'N'");
    }
  }

  /**
   * Runs {@code sql} with the simple query protocol: one or more statements separated by
   * semicolons, no parameters, and one result per statement.
   *
   * @param sql the statements
   * @return the results, one per statement, in order
   * @throws PgException if the server refused a statement; the client is usable
   * @throws IOException if the transport fails or the server breaks the protocol
   */
  public List<PgResult> simpleQuery(String sql) throws IOException {
    usable();
    ready = false;
    try {
      Frontend.query(transport, sql);
      transport.flush();
      return results(false);
    } catch (IOException | RuntimeException e) {
      lost(e);
      throw e;
    }
  }

  /**
   * Runs one statement with the extended query protocol (Parse, Bind, Describe, Execute, Sync),
   * with {@code parameters} sent as text for {@code $1}, {@code $2}, ...; null is SQL NULL.
   *
   * @param sql one statement
   * @param parameters the parameters' values as text
   * @return the result
   * @throws PgException if the server refused the statement; the client is usable
   * @throws IOException if the transport fails or the server breaks the protocol
   */
  public PgResult query(String sql, String... parameters) throws IOException {
    usable();
    if (parameters.length > 65535) {
      throw new IllegalArgumentException("more than 65535 parameters: " + parameters.length);
    }
    ready = false;
    try {
      Frontend.parse(transport, sql, parameters.length);
      Frontend.bind(transport, Arrays.asList(parameters));
      Frontend.describePortal(transport);
      Frontend.execute(transport, 0);
      Frontend.sync(transport);
      transport.flush();
      List<PgResult> results = results(true);
      if (results.size() != 1) {
        throw new ProtocolViolationException(results.size() + " results to one Execute");
      }
      return results.get(0);
    } catch (IOException | RuntimeException e) {
      lost(e);
      throw e;
    }
  }

  /** Reads results up to ReadyForQuery; throws the first error (or the row limit) after it. */
  private List<PgResult> results(boolean extended) throws IOException {
    List<PgResult> results = new ArrayList<>();
    List<String> columns = null;
    List<List<String>> rows = new ArrayList<>();
    IOException error = null;
    for (;;) {
      int type = in.next();
      switch (type) {
        case 'T':
          columns = rowDescription();
          rows = new ArrayList<>();
          break;
        case 'D':
          if (columns == null) {
            throw in.unexpected("(a DataRow) before any RowDescription");
          }
          if (rows.size() == options.rowLimit()) {
            if (error == null) {
              error = new IOException("a result of more than " + options.rowLimit() + " rows (the row limit)");
            }
            break;
          }
          rows.add(dataRow(columns.size()));
          break;
        case 'C':
          String tag = in.cstring();
          in.end();
          results.add(new PgResult(columns == null ? List.of() : columns, rows, tag));
          columns = null;
          rows = new ArrayList<>();
          break;
        case 'I':
          in.end();
          results.add(new PgResult(List.of(), List.of(), ""));
          break;
        case 'E':
          if (error == null) {
            error = new PgException(in.fields());
          }
          break;
        case 'N':
          keep(new PgNotice(in.fields()));
          break;
        case 'S':
          parameterStatus();
          break;
        case 'A':
          // A NOTIFY for a channel this session listens on: not kept, this client has no listener.
          break;
        case 'G':
          Frontend.copyFail(transport, "COPY FROM STDIN is not supported by this client");
          transport.flush();
          break;
        case 'H':
        case 'd':
        case 'c':
          // COPY TO STDOUT: its data is read and dropped; the CommandComplete follows.
          break;
        case 'Z':
          readyForQuery();
          if (error != null) {
            throw error;
          }
          return results;
        default:
          if (extended && (type == '1' || type == '2' || type == 'n' || type == 't' || type == 's')) {
            if (type == 'n') {
              columns = null;
            }
            break;
          }
          throw in.unexpected("in a query's results");
      }
    }
  }

  private List<String> rowDescription() throws IOException {
    int count = in.int16();
    if (count < 0 || count > options.fieldLimit()) {
      throw new ProtocolViolationException("RowDescription of " + count + " fields, over the limit of "
          + options.fieldLimit());
    }
    List<String> names = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      names.add(in.cstring());
      // table oid, column number, type oid, type size, type modifier, format code
      if (in.body().remaining() < 18) {
        throw new ProtocolViolationException("RowDescription cut short in field " + i);
      }
      in.body().position(in.body().position() + 18);
    }
    in.end();
    return names;
  }

  private List<String> dataRow(int columns) throws IOException {
    int count = in.int16();
    if (count != columns) {
      throw new ProtocolViolationException("DataRow of " + count + " fields where the RowDescription has " + columns);
    }
    String[] values = new String[count];
    for (int i = 0; i < count; i++) {
      int length = in.int32();
      values[i] = length == -1 ? null : in.text(length);
    }
    in.end();
    return Collections.unmodifiableList(Arrays.asList(values));
  }

  private void parameterStatus() throws IOException {
    String name = in.cstring();
    String value = in.cstring();
    in.end();
    parameters.put(name, value);
  }

  private void readyForQuery() throws IOException {
    int status = in.int8();
    in.end();
    if (status != 'I' && status != 'T' && status != 'E') {
      throw new ProtocolViolationException("ReadyForQuery with transaction status '" + Backend.printable(status) + "'");
    }
    transactionStatus = (char) status;
    ready = true;
  }

  /** After a failure that did not end at ReadyForQuery, the framing is lost: close. */
  private void lost(Exception e) {
    if (!ready) {
      broken = e.toString();
      transport.close();
    }
  }

  private void keep(PgNotice notice) {
    if (notices.size() == NOTICES_KEPT) {
      notices.removeFirst();
    }
    notices.addLast(notice);
  }

  private void usable() {
    if (broken != null) {
      throw new IllegalStateException("the connection is unusable after " + broken);
    }
    if (!transport.isOpen()) {
      throw new IllegalStateException("the transport is closed");
    }
  }

  /**
   * The notices received since the last call (at most the last {@value #NOTICES_KEPT}).
   *
   * @return the notices, oldest first
   */
  public List<PgNotice> takeNotices() {
    List<PgNotice> taken = new ArrayList<>(notices);
    notices.clear();
    return taken;
  }

  /**
   * The server's parameters as ParameterStatus reported them ({@code server_version},
   * {@code client_encoding}, {@code TimeZone}, ...), kept current.
   *
   * @return the parameters by name
   */
  public Map<String, String> parameters() {
    return Collections.unmodifiableMap(parameters);
  }

  /** {@return the server process's id, from BackendKeyData; for {@link #cancel}} */
  public int processId() {
    return processId;
  }

  /** {@return the secret key from BackendKeyData; for {@link #cancel}} */
  public int secretKey() {
    return secretKey;
  }

  /** {@return the transaction status at the last ReadyForQuery: 'I' idle, 'T' in a transaction, 'E' failed} */
  public char transactionStatus() {
    return transactionStatus;
  }

  /** {@return true while TLS protects the connection} */
  public boolean tls() {
    return transport.tlsSession().isPresent();
  }

  /**
   * Asks the server to cancel the statement a session is running, over {@code second}, a new
   * connection to the same server (PostgreSQL's CancelRequest): TLS first as {@code options}
   * say, then the request, then the server's close. The cancelled statement fails with SQLSTATE
   * {@value PgException#QUERY_CANCELED}; if it had already finished, nothing happens. Closes
   * {@code second}.
   *
   * @param second a newly connected transport to the server
   * @param options the TLS mode and settings to reach it with
   * @param processId the session's {@link #processId()}
   * @param secretKey the session's {@link #secretKey()}
   * @throws IOException if the request cannot be delivered
   */
  public static void cancel(Transport second, PgOptions options, int processId, int secretKey) throws IOException {
    try {
      negotiateTls(second, options);
      Frontend.cancelRequest(second, processId, secretKey);
      second.flush();
      // The server answers nothing and closes: wait for it, so the request has been taken.
      byte[] any = new byte[1];
      if (second.read(any, 0, 1) != -1) {
        throw new ProtocolViolationException("the server answered a CancelRequest");
      }
    } finally {
      second.close();
    }
  }

  /**
   * Sends Terminate and closes the transport. Safe to call more than once; a failure to send is
   * ignored, since the transport is closed either way.
   */
  @Override
  public void close() {
    try {
      if (broken == null && transport.isOpen()) {
        Frontend.terminate(transport);
        transport.flush();
      }
    } catch (IOException e) {
      // The server is gone already: closing is all that is left to do.
    } finally {
      broken = "close()";
      transport.close();
    }
  }

  @Override
  public String toString() {
    return "PgClient{" + options.user() + "@" + options.database() + ", pid " + processId
        + (tls() ? ", TLS" : "") + (broken == null ? "" : ", unusable") + "}";
  }
}
