package io.weft.protocols.http;

import io.weft.protocols.internal.GrowingBytes;
import io.weft.protocols.internal.Wire;
import io.weft.transport.LineTooLongException;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.Transport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
 * {@link IllegalStateException}; open a new transport and client. The client never closes the
 * transport: its owner does.
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
 * chunks are.
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
   * reading and keeping a parsed field allocates beyond them (the line, its name and value, their
   * slots: about 190 bytes on JDK 17 and 25), so that the budget bounds the allocation of a header
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
  private static final byte[] CRLF = {'\r', '\n'};

  private final Transport transport;
  private final String host;
  private final int maxLineBytes;
  private final int maxHeaderBytes;
  private final int maxBodyBytes;
  private final byte[] scratch = new byte[2];
  private int state = STATE_IDLE;
  private String unusableBecause;
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
    try {
      writeRequest(method, target, headers, body);
      transport.flush();
      HttpResponse response = readResponse("HEAD".equals(method));
      if (state == STATE_EXCHANGING) {
        state = STATE_IDLE;
      }
      return response;
    } catch (IOException | RuntimeException e) {
      state = STATE_BROKEN;
      unusableBecause = "an earlier exchange failed: " + e;
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
    writeHeaderLine(method + " " + target + " HTTP/1.1");
    if (headers == null || headers.get("Host") == null) {
      writeHeaderLine("Host: " + host);
    }
    if (body != null && (headers == null || headers.get("Content-Length") == null)) {
      writeHeaderLine("Content-Length: " + body.length);
    }
    if (headers != null) {
      for (int i = 0; i < headers.size(); i++) {
        writeHeaderLine(headers.name(i) + ": " + headers.value(i));
      }
    }
    transport.write(CRLF);
    if (body != null && body.length > 0) {
      transport.write(body);
    }
  }

  /** Header lines are ISO-8859-1, the one charset in which every octet of a field is a char. */
  private void writeHeaderLine(String line) throws IOException {
    transport.write(line, StandardCharsets.ISO_8859_1);
    transport.write(CRLF);
  }

  private HttpResponse readResponse(boolean head) throws IOException {
    headerBudget = maxHeaderBytes == Integer.MAX_VALUE ? Long.MAX_VALUE : maxHeaderBytes;
    for (int interim = 0; ; interim++) {
      String statusLine = readHeaderLine("status line");
      String version = parseVersion(statusLine);
      int status = parseStatus(statusLine);
      String reason = statusLine.length() > 13 ? statusLine.substring(13) : "";
      HttpHeaders headers = HttpHeaders.forResponse();
      readFields(headers, "header line");
      if (status >= 100 && status < 200) {
        if (status == 101) {
          throw new ProtocolViolationException("unrequested protocol switch: " + ProtocolViolationException.quote(statusLine));
        }
        if (interim >= MAX_INTERIM_RESPONSES) {
          throw new ProtocolViolationException("more than " + MAX_INTERIM_RESPONSES + " interim responses: "
              + ProtocolViolationException.quote(statusLine));
        }
        continue;
      }
      boolean keepAlive = "HTTP/1.1".equals(version)
          ? !headers.hasToken("Connection", "close")
          : headers.hasToken("Connection", "keep-alive");
      byte[] body = readBody(head, status, headers);
      if (!keepAlive && state == STATE_EXCHANGING) {
        spend("the server sent " + version + (headers.get("Connection") == null ? "" : " with Connection: " + headers.get("Connection")));
      }
      return new HttpResponse(version, status, reason, headers.readOnly(), body);
    }
  }

  private String readHeaderLine(String what) throws IOException {
    long left = headerBudget - FIELD_COST - 2;
    if (left < 0) {
      throw overHeaderBudget("reading a " + what);
    }
    String line;
    if (left >= maxLineBytes) {
      line = transport.readLineStrict(maxLineBytes, StandardCharsets.ISO_8859_1);
    } else {
      try {
        line = transport.readLineStrict((int) left, StandardCharsets.ISO_8859_1);
      } catch (LineTooLongException e) {
        // The line may well be within maxLineBytes: the limit passed is the section's.
        throw overHeaderBudget("in a " + what + " starting " + e.getMessage().substring(e.getMessage().indexOf(':') + 2));
      }
    }
    headerBudget = left - line.length();
    // String.indexOf(int) is a vectorized intrinsic; a charAt loop cost a share of every response.
    int nul = line.indexOf('\0');
    int cr = line.indexOf('\r');
    if (nul >= 0 || cr >= 0) {
      boolean nulFirst = nul >= 0 && (cr < 0 || nul < cr);
      throw new ProtocolViolationException((nulFirst ? "NUL" : "bare CR") + " in a " + what
          + " (RFC 9110 section 5.5): " + ProtocolViolationException.quote(line));
    }
    return line;
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

  private void readFields(HttpHeaders into, String what) throws IOException {
    for (;;) {
      String line = readHeaderLine(what);
      if (line.isEmpty()) {
        return;
      }
      char first = line.charAt(0);
      if (first == ' ' || first == '\t') {
        throw new ProtocolViolationException("obsolete header line folding: " + ProtocolViolationException.quote(line));
      }
      int colon = line.indexOf(':');
      if (colon <= 0 || !HttpHeaders.isToken(line, 0, colon)) {
        throw new ProtocolViolationException("malformed header line: " + ProtocolViolationException.quote(line));
      }
      into.addParsed(line.substring(0, colon), trimOws(line, colon + 1));
    }
  }

  /** The field value from {@code start}, without the spaces and tabs RFC 9110 allows around it. */
  private static String trimOws(String line, int start) {
    int end = line.length();
    while (start < end && (line.charAt(start) == ' ' || line.charAt(start) == '\t')) {
      start++;
    }
    while (end > start && (line.charAt(end - 1) == ' ' || line.charAt(end - 1) == '\t')) {
      end--;
    }
    return line.substring(start, end);
  }

  private byte[] readBody(boolean head, int status, HttpHeaders headers) throws IOException {
    if (head || status == 204 || status == 304) {
      return EMPTY;
    }
    List<String> encodings = headers.values("Transfer-Encoding");
    if (!encodings.isEmpty()) {
      String last = encodings.get(encodings.size() - 1);
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
    List<String> lengths = headers.values("Content-Length");
    if (!lengths.isEmpty()) {
      return readFixed(contentLength(lengths));
    }
    spend("the body was framed by the connection's close");
    return readUntilClose();
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
    GrowingBytes body = new GrowingBytes();
    Wire.readInto(transport, body, length, "body of Content-Length " + length);
    return body.toByteArray();
  }

  private byte[] readChunked() throws IOException {
    GrowingBytes body = new GrowingBytes();
    // The body's budget pays for the chunk-size lines too, or endless tiny chunks with long
    // extensions would cost nothing.
    long budget = maxBodyBytes == Integer.MAX_VALUE ? Long.MAX_VALUE : maxBodyBytes;
    for (;;) {
      String line = transport.readLineStrict(maxLineBytes, StandardCharsets.ISO_8859_1);
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
      Wire.readSized(transport, body, chunk, "chunk");
      Wire.expectCrlfAfter(transport, scratch, "chunk", chunk);
    }
    // Trailer fields count against the header limit; they are read and dropped.
    readFields(new HttpHeaders(), "trailer line");
    return body.toByteArray();
  }

  private byte[] readUntilClose() throws IOException {
    GrowingBytes body = new GrowingBytes();
    long limit = maxBodyBytes == Integer.MAX_VALUE ? Long.MAX_VALUE - 1 : maxBodyBytes;
    Wire.readToEnd(transport, body, limit, "body over the limit of " + maxBodyBytes + " bytes");
    return body.toByteArray();
  }

  private void spend(String because) {
    state = STATE_SPENT;
    unusableBecause = because;
  }

  private void checkUsable() {
    if (state == STATE_SPENT) {
      throw new IllegalStateException("connection not reusable: " + unusableBecause);
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
