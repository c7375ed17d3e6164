package io.weft.protocols.http;

import io.weft.protocols.internal.GrowingBytes;
import io.weft.protocols.internal.Wire;
import io.weft.transport.LineTooLongException;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.Transport;
import io.weft.transport.TransportTimeoutException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * An HTTP/1.1 client over one {@link Transport}: GET, POST and HEAD (or any method) with
 * request headers, responses read in full, one connection kept alive across requests.
 *
 * <h2>Response framing</h2>
 * As RFC 9112 section 6.3 orders it: no body for HEAD, 1xx, 204 and 304; else a chunked body
 * when {@code Transfer-Encoding} ends in {@code chunked}; else exactly {@code Content-Length}
 * bytes; else everything until the server closes. Interim 1xx responses are skipped.
 *
 * <h2>Lifecycle</h2>
 * {@code IDLE} (ready for a request) → {@code EXCHANGING} (request sent, response being read)
 * → back to {@code IDLE} when the connection may be reused, or {@code SPENT} when it may not:
 * the response said {@code Connection: close}, came from HTTP/1.0 without keep-alive, or was
 * framed by the close itself. Any {@link IOException} leaves it {@code BROKEN}: the stream is
 * at an unknown point. A {@code SPENT} or {@code BROKEN} client refuses requests with
 * {@link IllegalStateException}; open a new transport and client (made with
 * {@link #forNewConnection(Transport)}, it starts where the old one's buffer size had got
 * to). The client never closes the transport: its owner does.
 *
 * <h2>Threads</h2>
 * A client is not thread-safe: one session uses it at a time, one exchange after another, from
 * one thread or continuation.
 *
 * <h2>Limits</h2>
 * Memory follows the bytes received, never what the server claims: a body grows in steps of at
 * most 16 KiB as its bytes arrive, whatever its {@code Content-Length} or chunk sizes say. Each
 * response has a budget in two parts: its header section (status lines of interim responses,
 * fields, chunked trailers: their bytes plus {@value #FIELD_COST} per line, at least what a parsed
 * field allocates beyond its bytes) and its body (with the chunk-size lines of a chunked
 * body). Going over a limit is a {@link ProtocolViolationException} naming it and quoting the
 * input; a length over the body limit is refused before any of the body is read.
 *
 * <p>What reading a response allocates, garbage included, is at most 2 × its bytes +
 * {@value #ALLOCATION_PER_CHUNK} per chunk of a chunked body + 64 KiB (checked by the fuzz tests):
 * each chunk-size line is read as a {@code String}, about 40 bytes beyond its own for a one-byte
 * chunk ({@code 1\r\nx\r\n}, 6 bytes on the wire), so no bound in bytes alone holds for a body of
 * many tiny chunks. The chunks' bytes themselves are kept in a few segments however small the
 * chunks are. Bytes are read as the transport has them into a buffer of the client's own, and
 * parsed from there, so a response that arrived in one segment costs one read; bytes past a
 * response stay there for the next one. The buffer starts at 2 KiB for a client's first response
 * and then at a length fitted to the responses it has read (half as much again as the last one
 * held, 128 bytes to 2 KiB, shrinking by at most half per response), doubles when full, and is
 * never larger than one line needs.
 * Those bytes are the client's, no longer the transport's: a caller who reads the transport
 * itself after using the client, or gives it to another client, loses them, so keep one client
 * per connection for the connection's life. The buffer is let go when a response ends with
 * nothing past it.
 * <table>
 *   <caption>Limits and their defaults</caption>
 *   <tr><th>limit</th><th>default</th><th>least accepted</th></tr>
 *   <tr><td>{@code maxLineBytes}: a status, header or chunk-size line</td>
 *       <td>{@value #DEFAULT_MAX_LINE_BYTES}</td><td>{@value #MIN_LINE_BYTES}</td></tr>
 *   <tr><td>{@code maxHeaderBytes}: the header section, as above</td><td>{@value #DEFAULT_MAX_HEADER_BYTES}</td>
 *       <td>{@code maxLineBytes + 2 + FIELD_COST}</td></tr>
 *   <tr><td>{@code maxBodyBytes}: the body</td><td>{@value #DEFAULT_MAX_BODY_BYTES}</td><td>0</td></tr>
 * </table>
 * {@link Integer#MAX_VALUE} for a limit means no limit of the client's own (a body still cannot
 * pass what one Java array holds).
 *
 * <h2>Header values</h2>
 * A field value or reason phrase holding NUL or a bare CR is refused (RFC 9110 section 5.5), so
 * that {@code X-A: a\rContent-Length: 3} can never be read as two fields by one party and one by
 * another; LF ends the line.
 */
public final class HttpClient {
  /** What reading a response may allocate per chunk beyond 2 × its bytes (see the class javadoc). */
  public static final int ALLOCATION_PER_CHUNK = 64;
  /** Longest status, header or chunk-size line accepted, in bytes. */
  public static final int DEFAULT_MAX_LINE_BYTES = 8 * 1024;
  /** Largest header section (status line, fields, and chunked trailers) accepted, in bytes. */
  public static final int DEFAULT_MAX_HEADER_BYTES = 64 * 1024;
  /** Largest body accepted, in bytes. */
  public static final int DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
  /**
   * What each line of the header section costs against its budget, beyond its bytes: at least what
   * reading and keeping a parsed field allocates beyond them (its name and value, their slots:
   * under 190 bytes on JDK 17 and 25), so that the budget bounds the allocation of a header
   * section of many tiny fields as well as of a few long ones.
   */
  public static final int FIELD_COST = 256;
  /** The shortest line limit accepted: {@code HTTP/1.1 200 OK} needs 15 bytes. */
  public static final int MIN_LINE_BYTES = 16;

  private static final int STATE_IDLE = 0;
  private static final int STATE_EXCHANGING = 1;
  private static final int STATE_SPENT = 2;
  private static final int STATE_BROKEN = 3;

  private static final int MAX_INTERIM_RESPONSES = 16;
  private static final byte[] EMPTY = new byte[0];
  /**
   * The most a buffer of arrived bytes starts at, and what a new client's first one starts at: a
   * typical response in one read.
   */
  private static final int INITIAL_IN = 2048;
  /** The least a buffer of arrived bytes starts at, however small the responses were. */
  static final int MIN_FIRST_IN = 128;
  /** The largest array the buffer of arrived bytes may be: what a JVM is sure to allocate. */
  static final int MAX_IN = Integer.MAX_VALUE - 8;

  private final Transport transport;
  private final String host;
  private final int maxLineBytes;
  private final int maxHeaderBytes;
  private final int maxBodyBytes;
  private final byte[] scratch = new byte[2];
  /**
   * What arrived and is not parsed yet: {@code in[head..tail)}. Each read takes what the transport
   * has, so a response that came in one segment is parsed from here after one read, with no
   * transport call per line; bytes past a response stay for the next one, as they would in the
   * transport. It grows only as far as one line needs ({@code maxLineBytes + 2}), doubling when
   * full, so it is never more than twice the bytes that arrived (or 2 KiB). It is let go when a
   * response ends with nothing past it, as is {@link #out} once written: a session between
   * requests holds neither.
   */
  private byte[] in = EMPTY;
  private int head;
  private int tail;
  /**
   * The length a new buffer of arrived bytes starts at: {@link #INITIAL_IN} for a new client,
   * then fitted to the responses this client has read (see {@link #nextFirstIn}), so that a
   * kept-alive connection of small responses does not make a 2 KiB array per response.
   */
  private int firstIn = INITIAL_IN;
  /** The most bytes {@link #in} held unparsed at once during the exchange being made. */
  private int mostHeld;
  /** Bytes from {@code head} already searched for a line end. */
  private int scanned;
  /** Where in {@link #in} the line {@link #pollLineEnd} found last starts. */
  private int lineAt;
  /**
   * How many times {@link #roomIn} has run (each may move the bytes in {@link #in}, and a read
   * follows), and its count when {@link #lineAt} was set: a line is parsed in place only while the
   * two are equal (asserted).
   */
  private int roomsMade;
  private int roomsMadeAtLine;
  private boolean eof;
  /** How many bytes from {@code head} the line being looked for may need (see {@link #pollLine}). */
  private long wanted;
  /** The limit of the line being waited for, named in a timeout's message. */
  private int awaitedLineLimit;
  /** The response being read: interim responses skipped, its status line (null while due), its fields. */
  private int interim;
  private String statusLine;
  private HttpHeaders fields;
  /** The request being written, reused: one transport write per request. */
  private byte[] out = EMPTY;
  private int state = STATE_IDLE;
  private String unusableBecause;
  /**
   * Why a {@code SPENT} client whose {@link #unusableBecause} is null is spent: the response's
   * version, and its {@code Connection} field (null if none).
   */
  private String spentVersion;
  private String spentConnection;
  /** What the header section of the response being read may still cost. */
  private long headerBudget;

  /**
   * A client sending {@code Host: host} (a host, or host:port), with the default limits.
   *
   * @param transport the connection, which stays the caller's to close
   * @param host the {@code Host} header's value
   */
  public HttpClient(Transport transport, String host) {
    this(transport, host, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_HEADER_BYTES, DEFAULT_MAX_BODY_BYTES);
  }

  /**
   * A client with the given limits, in bytes.
   *
   * @param transport the connection, which stays the caller's to close
   * @param host the {@code Host} header's value
   * @param maxLineBytes the longest status, header or chunk-size line, in bytes
   * @param maxHeaderBytes the budget of the header section, counted as the class javadoc says, at
   *     least {@code maxLineBytes + 2 + FIELD_COST}
   * @param maxBodyBytes the largest body, in bytes
   * @throws IllegalArgumentException if a limit is below its least accepted value
   */
  public HttpClient(Transport transport, String host, int maxLineBytes, int maxHeaderBytes, int maxBodyBytes) {
    if (transport == null) {
      throw new IllegalArgumentException("transport == null");
    }
    if (host == null || host.isEmpty() || host.indexOf('\r') >= 0 || host.indexOf('\n') >= 0 || host.indexOf(' ') >= 0) {
      throw new IllegalArgumentException("bad host: " + host);
    }
    if (maxLineBytes < MIN_LINE_BYTES) {
      throw new IllegalArgumentException("maxLineBytes < " + MIN_LINE_BYTES
          + " (a status line such as HTTP/1.1 200 OK needs it): " + maxLineBytes);
    }
    if (maxHeaderBytes != Integer.MAX_VALUE && maxHeaderBytes < (long) maxLineBytes + 2 + FIELD_COST) {
      throw new IllegalArgumentException("maxHeaderBytes < maxLineBytes + 2 + " + FIELD_COST + " ("
          + ((long) maxLineBytes + 2 + FIELD_COST) + ", one line of the longest): " + maxHeaderBytes);
    }
    if (maxBodyBytes < 0) {
      throw new IllegalArgumentException("maxBodyBytes < 0: " + maxBodyBytes);
    }
    this.transport = transport;
    this.host = host;
    this.maxLineBytes = maxLineBytes;
    this.maxHeaderBytes = maxHeaderBytes;
    this.maxBodyBytes = maxBodyBytes;
  }

  /**
   * A client over {@code transport}, a new connection to this client's server (after a response
   * that ended this one's connection, say), with this client's settings: the same {@code Host} and
   * the same limits ({@code maxLineBytes}, {@code maxHeaderBytes}, {@code maxBodyBytes}), and the
   * buffer for its first response started at the length this client's responses fitted (see the
   * class javadoc), not at 2 KiB. This client may be in any state (idle, spent, broken, its
   * transport closed); it is only read, and is unchanged. Nothing else is shared or carried over:
   * the new client has its own buffers and state, and bytes this client held past its last
   * response belong to this client's connection, not the new one.
   *
   * @param transport the new connection, which stays the caller's to close
   * @return a new client over {@code transport}
   * @throws IllegalArgumentException if {@code transport} is null
   */
  public HttpClient forNewConnection(Transport transport) {
    HttpClient next = new HttpClient(transport, host, maxLineBytes, maxHeaderBytes, maxBodyBytes);
    next.firstIn = firstIn;
    return next;
  }

  /**
   * GET {@code target} with no extra headers.
   *
   * @param target the request target, such as {@code /index.html}
   * @return the response, read in full
   * @throws IOException if the transport fails or the response is malformed, as {@link #execute} says
   */
  public HttpResponse get(String target) throws IOException {
    return execute("GET", target, null, null);
  }

  /**
   * GET {@code target} with {@code headers}.
   *
   * @param target the request target, such as {@code /index.html}
   * @param headers extra request headers, or null
   * @return the response, read in full
   * @throws IOException if the transport fails or the response is malformed, as {@link #execute} says
   */
  public HttpResponse get(String target, HttpHeaders headers) throws IOException {
    return execute("GET", target, headers, null);
  }

  /**
   * HEAD {@code target} with {@code headers} (may be null); the response has no body.
   *
   * @param target the request target, such as {@code /index.html}
   * @param headers extra request headers, or null
   * @return the response, with no body
   * @throws IOException if the transport fails or the response is malformed, as {@link #execute} says
   */
  public HttpResponse head(String target, HttpHeaders headers) throws IOException {
    return execute("HEAD", target, headers, null);
  }

  /**
   * POST {@code body} to {@code target} with {@code headers} (may be null).
   *
   * @param target the request target, such as {@code /form}
   * @param headers extra request headers, or null
   * @param body the request body
   * @return the response, read in full
   * @throws IOException if the transport fails or the response is malformed, as {@link #execute} says
   */
  public HttpResponse post(String target, HttpHeaders headers, byte[] body) throws IOException {
    return execute("POST", target, headers, body == null ? EMPTY : body);
  }

  /**
   * Sends one request and reads its response in full. {@code Host} is added unless
   * {@code headers} has one; {@code Content-Length} is added for a body unless present.
   *
   * @param headers extra request headers, or null
   * @param body the request body, or null for none
   * @throws ProtocolViolationException if the response is malformed or over a limit
   * @throws java.io.EOFException if the server closes before the response is complete
   * @throws IllegalStateException if the connection may not be reused (see the class javadoc)
   * @param method the request method, such as {@code GET}
   * @param target the request target, such as {@code /index.html}
   * @return the response, read in full
   */
  public HttpResponse execute(String method, String target, HttpHeaders headers, byte[] body) throws IOException {
    if (method == null || !HttpHeaders.isToken(method)) {
      throw new IllegalArgumentException("method is not a token: " + method);
    }
    checkTarget(target);
    checkUsable();
    state = STATE_EXCHANGING;
    mostHeld = tail - head;
    try {
      writeRequest(method, target, headers, body);
      transport.flush();
      HttpResponse response = readResponse("HEAD".equals(method));
      if (state == STATE_EXCHANGING) {
        state = STATE_IDLE;
      }
      firstIn = nextFirstIn(firstIn, mostHeld, in.length);
      if (head == tail) {
        // Nothing past the response: a session waiting for its next request holds no buffer.
        in = EMPTY;
      }
      return response;
    } catch (IOException | RuntimeException e) {
      state = STATE_BROKEN;
      unusableBecause = "an earlier exchange failed: " + e;
      in = EMPTY;
      head = 0;
      tail = 0;
      throw e;
    }
  }

  /**
   * True while the connection may carry another request.
   *
   * @return true if another request may be sent on this connection
   */
  public boolean isReusable() {
    return state == STATE_IDLE;
  }

  private void writeRequest(String method, String target, HttpHeaders headers, byte[] body) throws IOException {
    boolean addHost = headers == null || headers.get("Host") == null;
    String length = body != null && (headers == null || headers.get("Content-Length") == null)
        ? Integer.toString(body.length) : null;
    // The request's array is made once, as long as its chars (each is one byte, or none for the
    // second of a surrogate pair): the transport may keep it, so it cannot be reused, and a
    // doubling from a guess would make one to three arrays per request.
    long chars = method.length() + 1L + target.length() + 11 + 2
        + (addHost ? 6L + host.length() + 2 : 0)
        + (length != null ? 16L + length.length() + 2 : 0);
    if (headers != null) {
      for (int i = 0; i < headers.size(); i++) {
        chars += headers.name(i).length() + 2L + headers.value(i).length() + 2;
      }
    }
    if (chars > out.length && chars <= MAX_IN) {
      out = new byte[(int) chars];
    }
    int n = 0;
    n = put(put(put(put(n, method), " "), target), " HTTP/1.1\r\n");
    if (addHost) {
      n = put(put(put(n, "Host: "), host), "\r\n");
    }
    if (length != null) {
      n = put(put(put(n, "Content-Length: "), length), "\r\n");
    }
    if (headers != null) {
      for (int i = 0; i < headers.size(); i++) {
        n = put(put(put(put(n, headers.name(i)), ": "), headers.value(i)), "\r\n");
      }
    }
    n = put(n, "\r\n");
    byte[] request = out;
    out = EMPTY;
    transport.write(request, 0, n);
    if (body != null && body.length > 0) {
      transport.write(body);
    }
  }

  /**
   * Puts {@code text} into the request at {@code at} as ISO-8859-1, the one charset in which every
   * octet of a field is a char (a char beyond it is sent as {@code ?}, as the charset's encoder
   * does); returns the end.
   */
  private int put(int at, String text) {
    int length = text.length();
    if (out.length - at < length) {
      out = Arrays.copyOf(out, Math.max(Math.max(2 * out.length, 256), at + length));
    }
    byte[] o = out;
    for (int i = 0; i < length; i++) {
      char c = text.charAt(i);
      if (c > 0xff) {
        // One ? for a whole surrogate pair, as the encoder writes it.
        if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(text.charAt(i + 1))) {
          i++;
        }
        c = '?';
      }
      o[at++] = (byte) c;
    }
    return at;
  }

  private HttpResponse readResponse(boolean head) throws IOException {
    headerBudget = maxHeaderBytes == Integer.MAX_VALUE ? Long.MAX_VALUE : maxHeaderBytes;
    interim = 0;
    statusLine = null;
    fields = null;
    // The header section is parsed as its bytes arrive, with no wait inside the parse: the one
    // call that may wait (and, in continuation mode, suspend) is this loop's read, made here
    // rather than through fillIn: one frame fewer to capture and restore at each wait for a head.
    while (!pollHead()) {
      if (roomIn(wanted)) {
        int n;
        try {
          n = transport.read(in, tail, in.length - tail);
        } catch (TransportTimeoutException e) {
          throw timedOutInLine(e);
        }
        arrived(n);
      }
    }
    String line = statusLine;
    HttpHeaders headers = fields;
    statusLine = null;
    fields = null;
    String version = parseVersion(line);
    int status = parseStatus(line);
    String reason = line.length() > 13 ? line.substring(13) : "";
    boolean keepAlive = "HTTP/1.1".equals(version)
        ? !headers.hasToken("Connection", "close")
        : headers.hasToken("Connection", "keep-alive");
    byte[] body = readBody(head, status, headers);
    if (!keepAlive && state == STATE_EXCHANGING) {
      // The reason's words are made when asked (checkUsable), not with every such response.
      state = STATE_SPENT;
      unusableBecause = null;
      spentVersion = version;
      spentConnection = headers.get("Connection");
    }
    return new HttpResponse(version, status, reason, headers.readOnly(), body);
  }

  /**
   * Parses what has arrived of the header section, skipping interim responses, without waiting:
   * true once a final response's status line and fields are in {@link #statusLine} and
   * {@link #fields}; false when more bytes are needed ({@link #wanted} from {@code head}).
   */
  private boolean pollHead() throws IOException {
    for (;;) {
      if (statusLine == null) {
        int length = pollHeaderLine("status line");
        if (length < 0) {
          return false;
        }
        String line = new String(in, lineAt, length, StandardCharsets.ISO_8859_1);
        parseVersion(line);
        parseStatus(line);
        statusLine = line;
        fields = HttpHeaders.forResponse();
      }
      if (!pollFields(fields, "header line")) {
        return false;
      }
      int status = parseStatus(statusLine);
      if (status >= 200) {
        return true;
      }
      if (status == 101) {
        throw new ProtocolViolationException("unrequested protocol switch: " + ProtocolViolationException.quote(statusLine));
      }
      if (interim >= MAX_INTERIM_RESPONSES) {
        throw new ProtocolViolationException("more than " + MAX_INTERIM_RESPONSES + " interim responses: "
            + ProtocolViolationException.quote(statusLine));
      }
      interim++;
      statusLine = null;
    }
  }

  /**
   * The length of the next header-section line if it has arrived (its bytes at
   * {@code in[lineAt..lineAt + length)}, already consumed: read them before the next read), else
   * -1; charged to the section's budget.
   */
  private int pollHeaderLine(String what) throws IOException {
    long left = headerBudget - FIELD_COST - 2;
    if (left < 0) {
      throw overHeaderBudget("reading a " + what);
    }
    int length;
    if (left >= maxLineBytes) {
      length = pollLineEnd(maxLineBytes);
    } else {
      try {
        length = pollLineEnd((int) left);
      } catch (LineTooLongException e) {
        // The line may well be within maxLineBytes: the limit passed is the section's.
        throw overHeaderBudget("in a " + what + " starting " + e.getMessage().substring(e.getMessage().indexOf(':') + 2));
      }
    }
    if (length < 0) {
      return -1;
    }
    headerBudget = left - length;
    byte[] b = in;
    for (int i = lineAt, end = lineAt + length; i < end; i++) {
      byte c = b[i];
      if (c == 0 || c == '\r') {
        throw new ProtocolViolationException((c == 0 ? "NUL" : "bare CR") + " in a " + what
            + " (RFC 9110 section 5.5): " + ProtocolViolationException.quote(lineString(length)));
      }
    }
    return length;
  }

  /** The line at {@code in[lineAt..lineAt + length)} as a String, for a message. */
  private String lineString(int length) {
    assert roomsMade == roomsMadeAtLine : "the line's bytes were moved or overwritten";
    return new String(in, lineAt, length, StandardCharsets.ISO_8859_1);
  }

  private ProtocolViolationException overHeaderBudget(String where) {
    return new ProtocolViolationException("header section over the limit of " + maxHeaderBytes
        + " bytes (maxHeaderBytes: its bytes plus " + FIELD_COST + " per line), " + where);
  }

  private static String parseVersion(String line) throws ProtocolViolationException {
    if (line.startsWith("HTTP/1.1 ")) {
      return "HTTP/1.1";
    }
    if (line.startsWith("HTTP/1.0 ")) {
      return "HTTP/1.0";
    }
    throw new ProtocolViolationException("not an HTTP/1.x status line: " + ProtocolViolationException.quote(line));
  }

  private static int parseStatus(String line) throws ProtocolViolationException {
    // "HTTP/1.1 200 OK": three digits at 9..12, then a space or the end of the line.
    if (line.length() < 12 || (line.length() > 12 && line.charAt(12) != ' ')) {
      throw new ProtocolViolationException("malformed status line: " + ProtocolViolationException.quote(line));
    }
    int status = 0;
    for (int i = 9; i < 12; i++) {
      char c = line.charAt(i);
      if (c < '0' || c > '9') {
        throw new ProtocolViolationException("non-numeric status code: " + ProtocolViolationException.quote(line));
      }
      status = status * 10 + (c - '0');
    }
    if (status < 100) {
      throw new ProtocolViolationException("status code below 100: " + ProtocolViolationException.quote(line));
    }
    return status;
  }

  /** Reads fields into {@code into} up to the empty line that ends them (a chunked body's trailers). */
  private void readFields(HttpHeaders into, String what) throws IOException {
    while (!pollFields(into, what)) {
      fillIn(wanted);
    }
  }

  /** Parses the fields that have arrived into {@code into}: true at the empty line that ends them. */
  private boolean pollFields(HttpHeaders into, String what) throws IOException {
    for (;;) {
      int length = pollHeaderLine(what);
      if (length < 0) {
        return false;
      }
      if (length == 0) {
        return true;
      }
      // Parsed from the bytes: the field's name and value are made from them, not cut from a
      // String of the whole line, and a common name is the one String HttpHeaders keeps for it.
      assert roomsMade == roomsMadeAtLine : "the line's bytes were moved or overwritten";
      byte[] b = in;
      int at = lineAt;
      int end = at + length;
      if (b[at] == ' ' || b[at] == '\t') {
        throw new ProtocolViolationException("obsolete header line folding: " + ProtocolViolationException.quote(lineString(length)));
      }
      int colon = at;
      while (colon < end && b[colon] != ':') {
        colon++;
      }
      if (colon == end || colon == at || !HttpHeaders.isToken(b, at, colon)) {
        throw new ProtocolViolationException("malformed header line: " + ProtocolViolationException.quote(lineString(length)));
      }
      // The value without the spaces and tabs RFC 9110 allows around it.
      int start = colon + 1;
      while (start < end && (b[start] == ' ' || b[start] == '\t')) {
        start++;
      }
      while (end > start && (b[end - 1] == ' ' || b[end - 1] == '\t')) {
        end--;
      }
      into.addParsed(HttpHeaders.parsedName(b, at, colon), new String(b, start, end - start, StandardCharsets.ISO_8859_1));
    }
  }

  private byte[] readBody(boolean head, int status, HttpHeaders headers) throws IOException {
    if (head || status == 204 || status == 304) {
      return EMPTY;
    }
    String last = headers.last("Transfer-Encoding");
    if (last != null) {
      int comma = last.lastIndexOf(',');
      String lastCoding = (comma < 0 ? last : last.substring(comma + 1)).trim();
      if (headers.get("Content-Length") != null) {
        // RFC 9112 6.3: Transfer-Encoding wins, but such a message may be a smuggling attempt.
        spend("the response had both Transfer-Encoding and Content-Length");
      }
      if (lastCoding.equalsIgnoreCase("chunked")) {
        return readChunked();
      }
      spend("the body was framed by the connection's close");
      return readUntilClose();
    }
    int lengths = headers.count("Content-Length");
    if (lengths == 1) {
      long length = plainLength(headers.get("Content-Length"));
      if (length >= 0) {
        return readFixed(length);
      }
    }
    if (lengths > 0) {
      return readFixed(contentLength(headers.values("Content-Length")));
    }
    spend("the body was framed by the connection's close");
    return readUntilClose();
  }

  /**
   * The length a single {@code Content-Length} value of 1 to 18 digits (with spaces around, as
   * {@link String#trim} trims) gives, with nothing made on the way; -1 for any other value, which
   * {@link #contentLength} then reads (and refuses) as before.
   */
  private static long plainLength(String value) {
    int a = 0;
    int b = value.length();
    while (a < b && value.charAt(a) <= ' ') {
      a++;
    }
    while (b > a && value.charAt(b - 1) <= ' ') {
      b--;
    }
    if (b - a < 1 || b - a > 18) {
      return -1;
    }
    long length = 0;
    for (int i = a; i < b; i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      length = length * 10 + (c - '0');
    }
    return length;
  }

  private long contentLength(List<String> fields) throws ProtocolViolationException {
    long length = -1;
    for (String field : fields) {
      for (String part : field.split(",", -1)) {
        String value = part.trim();
        long parsed = Wire.parseLong(value, 0, value.length(), "Content-Length", "Content-Length: " + field);
        // 1*DIGIT: a sign, even on zero, is not a Content-Length.
        if (parsed < 0 || value.charAt(0) == '-') {
          throw new ProtocolViolationException("negative Content-Length: " + ProtocolViolationException.quote(field));
        }
        if (length != -1 && parsed != length) {
          throw new ProtocolViolationException("conflicting Content-Length values: " + ProtocolViolationException.quote(fields.toString()));
        }
        length = parsed;
      }
    }
    return length;
  }

  private byte[] readFixed(long length) throws IOException {
    if (length > maxBodyBytes) {
      throw new ProtocolViolationException("Content-Length " + length + " over the body limit of " + maxBodyBytes + " bytes");
    }
    if (tail - head >= length) {
      // The whole body arrived with the header section (the usual case): one copy.
      byte[] body = Arrays.copyOfRange(in, head, head + (int) length);
      consume((int) length);
      return body;
    }
    GrowingBytes body = new GrowingBytes();
    long done = fill(body, length);
    if (done < length) {
      throw Wire.endOfStream("body of Content-Length " + length, done, length, body.quoteTail());
    }
    return body.toByteArray();
  }

  private byte[] readChunked() throws IOException {
    GrowingBytes body = new GrowingBytes();
    // The body's budget pays for the chunk-size lines too, or endless tiny chunks with long
    // extensions would cost nothing.
    long budget = maxBodyBytes == Integer.MAX_VALUE ? Long.MAX_VALUE : maxBodyBytes;
    for (;;) {
      String line = readLine(maxLineBytes);
      budget -= line.length() + 2;
      int end = line.indexOf(';');
      if (end < 0) {
        end = line.length();
      }
      while (end > 0 && (line.charAt(end - 1) == ' ' || line.charAt(end - 1) == '\t')) {
        end--;
      }
      long chunk = Wire.parseHex(line, 0, end, "chunk size", line);
      if (chunk == 0) {
        break;
      }
      if (chunk + 2 > budget) {
        throw new ProtocolViolationException("chunked body over the limit of " + maxBodyBytes
            + " bytes (maxBodyBytes, with its chunk-size lines) at chunk size " + ProtocolViolationException.quote(line));
      }
      budget -= chunk + 2;
      long done = fill(body, chunk);
      if (done < chunk) {
        throw Wire.endOfStream("chunk of " + chunk + " bytes", done, chunk, body.quoteTail());
      }
      int got = readUpTo(scratch, 2);
      if (got < 2 || scratch[0] != '\r' || scratch[1] != '\n') {
        throw Wire.notCrlf("chunk of " + chunk + " bytes", scratch, got);
      }
    }
    // Trailer fields count against the header limit; they are read and dropped.
    readFields(new HttpHeaders(), "trailer line");
    return body.toByteArray();
  }

  private byte[] readUntilClose() throws IOException {
    GrowingBytes body = new GrowingBytes();
    long limit = maxBodyBytes == Integer.MAX_VALUE ? Long.MAX_VALUE - 1 : maxBodyBytes;
    for (;;) {
      // One byte past the limit is enough to know it was passed.
      int room = body.room(limit - body.size() + 1);
      int n = read(body.segment(), body.position(), room);
      if (n < 0) {
        return body.toByteArray();
      }
      body.advance(n);
      if (body.size() > limit) {
        throw new ProtocolViolationException("body over the limit of " + maxBodyBytes + " bytes");
      }
    }
  }

  // ---- Reading: from what arrived first, then from the transport.

  /**
   * A line of at most {@code limit} bytes without its line end (LF, or CRLF), read as the
   * transport's {@code readLineStrict} reads one: the same limit, the same exceptions.
   */
  private String readLine(int limit) throws IOException {
    for (;;) {
      String line = pollLine(limit);
      if (line != null) {
        return line;
      }
      fillIn(wanted);
    }
  }

  /**
   * The next line if it has arrived, as {@link #readLine}; else null, with {@link #wanted} set to
   * the bytes from {@code head} it may need. At the end of the stream, the transport's
   * {@code EOFException}s.
   */
  private String pollLine(int limit) throws IOException {
    int length = pollLineEnd(limit);
    return length < 0 ? null : lineString(length);
  }

  /**
   * As {@link #pollLine}, the line's length, its bytes left at {@code in[lineAt..lineAt + length)}
   * (consumed: read them before the next read into {@link #in}); -1 where it returns null.
   */
  private int pollLineEnd(int limit) throws IOException {
    int size = tail - head;
    // A line of `limit` bytes needs up to limit + 2 bytes with its CRLF; look no further.
    int window = (int) Math.min((long) size, (long) limit + 2L);
    byte[] b = in;
    for (int i = head + scanned, end = head + window; i < end; i++) {
      if (b[i] == '\n') {
        int length = (i > head && b[i - 1] == '\r' ? i - 1 : i) - head;
        if (length > limit) {
          throw tooLong(limit);
        }
        lineAt = head;
        roomsMadeAtLine = roomsMade;
        consume(i + 1 - head);
        return length;
      }
    }
    if (window == (long) limit + 2L || (size == limit + 1 && b[head + limit] != '\r')) {
      throw tooLong(limit);
    }
    scanned = window;
    if (!eof) {
      wanted = limit + 2L;
      awaitedLineLimit = limit;
      return -1;
    }
    if (size == 0) {
      throw new EOFException("end of stream: expected a line");
    }
    throw new EOFException("end of stream inside a line after " + size + " bytes: "
        + ProtocolViolationException.quote(in, head, size));
  }

  private LineTooLongException tooLong(int limit) {
    return new LineTooLongException(limit, ProtocolViolationException.quote(in, head, tail - head));
  }

  private void consume(int n) {
    head += n;
    scanned = 0;
    if (head == tail) {
      head = 0;
      tail = 0;
    }
  }

  /**
   * Reads what the transport has into {@link #in} behind what is there, making room for a line
   * of up to {@code need} bytes from {@code head}; false at the end of the stream.
   */
  private boolean fillIn(long need) throws IOException {
    if (!roomIn(need)) {
      return false;
    }
    int n;
    try {
      n = transport.read(in, tail, in.length - tail);
    } catch (TransportTimeoutException e) {
      throw timedOutInLine(e);
    }
    return arrived(n);
  }

  /**
   * Makes room in {@link #in} behind what is there for a line of up to {@code need} bytes from
   * {@code head}, as {@link #fillIn} reads into it; false at the end of the stream (nothing to read).
   */
  private boolean roomIn(long need) throws ProtocolViolationException {
    roomsMade++;
    if (eof) {
      return false;
    }
    if (head > 0) {
      System.arraycopy(in, head, in, 0, tail - head);
      tail -= head;
      head = 0;
    }
    if (tail == in.length) {
      if (tail >= MAX_IN) {
        throw new ProtocolViolationException("a line longer than one Java array holds (" + MAX_IN
            + " bytes): " + ProtocolViolationException.quote(in, head, tail - head));
      }
      in = Arrays.copyOf(in, grownLength(in.length, need, firstIn));
    }
    return true;
  }

  /** Takes in what a read into {@link #in} at {@code tail} returned; false at the end of the stream. */
  private boolean arrived(int n) {
    if (n < 0) {
      eof = true;
      return false;
    }
    tail += n;
    if (tail - head > mostHeld) {
      mostHeld = tail - head;
    }
    return true;
  }

  /**
   * The length the next buffer of arrived bytes starts at, after an exchange in which the buffer
   * ({@code length} long at its end) held at most {@code mostHeld} unparsed bytes at once, when
   * the last one started at {@code first}. Half as much again as the response held, rounded up to
   * 64 bytes; twice the buffer if a read filled it (the transport may have had more); never less
   * than half of {@code first} (a run of small responses shrinks it over a few exchanges, so one
   * small response among large ones costs little); between {@link #MIN_FIRST_IN} and
   * {@link #INITIAL_IN}. It follows what arrived: after a few responses of n bytes each, in one
   * piece, a buffer starts at about 1.5 n + 64 bytes (at most 2 KiB).
   */
  static int nextFirstIn(int first, int mostHeld, int length) {
    long want = mostHeld >= length ? 2L * length : mostHeld + (mostHeld >> 1);
    want = (want + 63) & ~63L;
    long next = Math.max(want, first / 2);
    return (int) Math.max(MIN_FIRST_IN, Math.min(INITIAL_IN, next));
  }

  /**
   * The length the buffer of arrived bytes grows to from a full {@code length}, for a line that
   * may need {@code need} bytes: twice as much (at least {@code first}, the length a new buffer
   * starts at, at most 2 KiB), so that it follows the bytes received, but never past {@code need}
   * nor {@link #MAX_IN}; always more than {@code length} while {@code length < MAX_IN}.
   */
  static int grownLength(int length, long need, int first) {
    long grown = Math.max(Math.min(2L * length, need), Math.min((long) first, need));
    return (int) Math.min(Math.max(grown, length + 1L), MAX_IN);
  }

  /**
   * The transport's timeout, saying what the client waited for and quoting what it holds of the
   * line, as the transport says it when it holds the bytes itself: the client read them all, so
   * the transport's own message says "any bytes; nothing read so far".
   */
  private TransportTimeoutException timedOutInLine(TransportTimeoutException e) {
    String message = e.getMessage();
    int at = message == null ? -1 : message.lastIndexOf(" waiting for ");
    if (at < 0) {
      return e;
    }
    int size = tail - head;
    String unread = size == 0 ? "nothing read so far"
        : size + (size == 1 ? " byte" : " bytes") + " read so far: " + ProtocolViolationException.quote(in, head, size);
    TransportTimeoutException said = new TransportTimeoutException(message.substring(0, at)
        + " waiting for a line (limit " + awaitedLineLimit + " bytes); " + unread);
    said.initCause(e);
    return said;
  }

  /** Up to {@code length} bytes: those that arrived first, then at least one from the transport; -1 at the end. */
  private int read(byte[] dst, int offset, int length) throws IOException {
    int size = tail - head;
    if (size > 0) {
      int n = Math.min(size, length);
      System.arraycopy(in, head, dst, offset, n);
      consume(n);
      return n;
    }
    if (eof) {
      return -1;
    }
    int n = transport.read(dst, offset, length);
    if (n < 0) {
      eof = true;
    }
    return n;
  }

  /** Reads {@code length} bytes into {@code into}; returns how many came before the end of the stream. */
  private long fill(GrowingBytes into, long length) throws IOException {
    long done = 0;
    while (done < length) {
      int room = into.room(length - done);
      int n = read(into.segment(), into.position(), room);
      if (n < 0) {
        return done;
      }
      into.advance(n);
      done += n;
    }
    return done;
  }

  /** Reads up to {@code length} bytes into {@code dst}; returns how many came before the end of the stream. */
  private int readUpTo(byte[] dst, int length) throws IOException {
    int done = 0;
    while (done < length) {
      int n = read(dst, done, length - done);
      if (n < 0) {
        return done;
      }
      done += n;
    }
    return done;
  }

  private void spend(String because) {
    state = STATE_SPENT;
    unusableBecause = because;
  }

  private void checkUsable() {
    if (state == STATE_SPENT) {
      throw new IllegalStateException("connection not reusable: " + (unusableBecause != null ? unusableBecause
          : "the server sent " + spentVersion + (spentConnection == null ? "" : " with Connection: " + spentConnection)));
    }
    if (state == STATE_BROKEN) {
      throw new IllegalStateException("client unusable: " + unusableBecause);
    }
    if (state == STATE_EXCHANGING) {
      throw new IllegalStateException("an exchange is already in progress");
    }
  }

  private static void checkTarget(String target) {
    if (target == null || target.isEmpty()) {
      throw new IllegalArgumentException("empty request target");
    }
    for (int i = 0; i < target.length(); i++) {
      char c = target.charAt(i);
      if (c <= ' ' || c >= 0x7f) {
        throw new IllegalArgumentException("whitespace, control or non-ASCII character in request target"
            + " (percent-encode it): " + target);
      }
    }
  }
}
