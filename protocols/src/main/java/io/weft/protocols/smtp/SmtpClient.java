package io.weft.protocols.smtp;

import io.weft.transport.LineTooLongException;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * An SMTP client (RFC 5321) over one {@link Transport}: greeting, EHLO with HELO fallback,
 * MAIL FROM, RCPT TO, DATA (dot-stuffed, line ends normalised to CRLF), RSET and QUIT.
 *
 * <h2>Lifecycle</h2>
 * <pre>
 * CONNECTED --{@link #greeting()}--&gt; GREETED --{@link #hello}--&gt; READY
 * READY --{@link #startTls}--&gt; READY (over TLS, after a second EHLO)
 * READY --{@link #mailFrom}--&gt; MAIL --{@link #rcptTo} (one or more)--&gt; RCPT --{@link #data}--&gt; READY
 * MAIL, RCPT --{@link #rset()}--&gt; READY        any --{@link #quit()}--&gt; CLOSED
 * </pre>
 * A command called out of order throws {@link IllegalStateException}. A reply outside the
 * expected class throws {@link SmtpReplyException} and leaves the state as the protocol does
 * (a refused RCPT keeps the transaction; a refused message ends it). Any other
 * {@link IOException} (a malformed reply, an end of stream, a timeout) leaves the client
 * {@code BROKEN}: every later call throws {@link IllegalStateException}. The client never
 * closes the transport: its owner does, after {@link #quit()}.
 *
 * <p>TLS: on port 587 (submission) call {@link #startTls} after {@link #hello} when
 * {@link #offersStartTls()}; on port 465 connect with a connector made with TLS settings (implicit
 * TLS) and use the client as on plaintext.
 *
 * <h2>Limits</h2>
 * Every reply line is read with a byte limit; a reply may have at most {@value #MAX_REPLY_LINES}
 * lines, and its lines together (each with its CRLF plus {@value #LINE_COST}, about what a parsed
 * line costs on the heap beyond its bytes) at most {@code maxReplyBytes}. Going over any of them
 * is a {@link ProtocolViolationException} naming the limit.
 * <table>
 *   <caption>Limits and their defaults</caption>
 *   <tr><th>limit</th><th>default</th><th>least accepted</th></tr>
 *   <tr><td>{@code maxLineBytes}: a reply line</td><td>{@value #DEFAULT_MAX_LINE_BYTES}</td>
 *       <td>{@value #MIN_LINE_BYTES}</td></tr>
 *   <tr><td>{@code maxReplyBytes}: one whole reply, as above</td><td>{@value #DEFAULT_MAX_REPLY_BYTES}</td>
 *       <td>{@code maxLineBytes + 2 + LINE_COST}</td></tr>
 *   <tr><td>{@link #MAX_REPLY_LINES}: lines of one reply</td><td>{@value #MAX_REPLY_LINES}</td><td>fixed</td></tr>
 * </table>
 * {@link Integer#MAX_VALUE} for a limit means no limit of the client's own.
 */
public final class SmtpClient {
  /** Longest reply line accepted, in bytes; RFC 5321 allows 512 with CRLF, servers send more. */
  public static final int DEFAULT_MAX_LINE_BYTES = 2048;
  /** Most lines accepted in one multi-line reply. */
  public static final int MAX_REPLY_LINES = 256;
  /** Largest reply accepted: its lines with their CRLFs plus {@value #LINE_COST} per line. */
  public static final int DEFAULT_MAX_REPLY_BYTES = 64 * 1024;
  /** What each line of a reply costs against the reply's budget, beyond its bytes. */
  public static final int LINE_COST = 32;
  /** The shortest line limit accepted: a reply code. */
  public static final int MIN_LINE_BYTES = 3;

  private static final int STATE_CONNECTED = 0;
  private static final int STATE_GREETED = 1;
  private static final int STATE_READY = 2;
  private static final int STATE_MAIL = 3;
  private static final int STATE_RCPT = 4;
  private static final int STATE_CLOSED = 5;
  private static final int STATE_BROKEN = 6;
  private static final String[] STATE_NAMES = {"CONNECTED", "GREETED", "READY", "MAIL", "RCPT", "CLOSED", "BROKEN"};

  private static final int DATA_CHUNK = 8 * 1024;
  private static final byte[] END_OF_DATA = {'.', '\r', '\n'};

  private final Transport transport;
  private final int maxLineBytes;
  private final int maxReplyBytes;
  private int state = STATE_CONNECTED;
  private String brokenBy;
  private List<String> extensions = List.of();

  /**
   * A client with the default line limit.
   *
   * @param transport the connection, which stays the caller's to close
   */
  public SmtpClient(Transport transport) {
    this(transport, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_REPLY_BYTES);
  }

  /**
   * A client accepting reply lines of at most {@code maxLineBytes} bytes.
   *
   * @param transport the connection, which stays the caller's to close
   * @param maxLineBytes the longest reply line, in bytes, at least {@value #MIN_LINE_BYTES}
   * @throws IllegalArgumentException if the limit is below {@value #MIN_LINE_BYTES}
   */
  public SmtpClient(Transport transport, int maxLineBytes) {
    this(transport, maxLineBytes, (int) Math.min(Integer.MAX_VALUE,
        Math.max((long) DEFAULT_MAX_REPLY_BYTES, (long) maxLineBytes + 2 + LINE_COST)));
  }

  /**
   * A client accepting reply lines of at most {@code maxLineBytes} bytes and replies of at most
   * {@code maxReplyBytes}, counted as the class javadoc says.
   *
   * @param transport the connection, which stays the caller's to close
   * @param maxLineBytes the longest reply line, in bytes, at least {@value #MIN_LINE_BYTES}
   * @param maxReplyBytes the budget of one whole reply, at least {@code maxLineBytes + 2 + LINE_COST}
   * @throws IllegalArgumentException if a limit is below its least accepted value
   */
  public SmtpClient(Transport transport, int maxLineBytes, int maxReplyBytes) {
    if (transport == null) {
      throw new IllegalArgumentException("transport == null");
    }
    if (maxLineBytes < MIN_LINE_BYTES) {
      throw new IllegalArgumentException("maxLineBytes < " + MIN_LINE_BYTES + " (a reply code): " + maxLineBytes);
    }
    if (maxReplyBytes != Integer.MAX_VALUE && maxReplyBytes < (long) maxLineBytes + 2 + LINE_COST) {
      throw new IllegalArgumentException("maxReplyBytes < maxLineBytes + 2 + " + LINE_COST + " ("
          + ((long) maxLineBytes + 2 + LINE_COST) + ", one line of the longest): " + maxReplyBytes);
    }
    this.transport = transport;
    this.maxLineBytes = maxLineBytes;
    this.maxReplyBytes = maxReplyBytes;
  }

  /**
   * Reads the server's greeting, which must be 2xx (220).
   *
   * @return the greeting
   * @throws IOException a {@link SmtpReplyException} if the greeting is not 2xx, or the transport fails
   */
  public SmtpReply greeting() throws IOException {
    expectState("greeting", STATE_CONNECTED);
    SmtpReply reply = expect("greeting", readReplyOrBreak(), 2);
    state = STATE_GREETED;
    return reply;
  }

  /**
   * Says {@code EHLO domain}; if the server rejects EHLO as unknown (5xx), says
   * {@code HELO domain} instead. Returns the accepted reply.
   *
   * @param domain the client's domain, for the greeting
   * @return the accepted reply
   * @throws IOException a {@link SmtpReplyException} if both are refused, or the transport fails
   */
  public SmtpReply hello(String domain) throws IOException {
    checkArgument("domain", domain);
    expectState("EHLO", STATE_GREETED);
    SmtpReply reply = command("EHLO " + domain);
    if (reply.codeClass() == 2) {
      List<String> lines = reply.lines();
      extensions = Collections.unmodifiableList(new ArrayList<>(lines.subList(1, lines.size())));
      state = STATE_READY;
      return reply;
    }
    if (reply.codeClass() != 5) {
      throw new SmtpReplyException("EHLO", reply);
    }
    reply = expect("HELO", command("HELO " + domain), 2);
    extensions = List.of();
    state = STATE_READY;
    return reply;
  }

  /**
   * The extension lines of the EHLO reply ({@code SIZE 10240000}, {@code 8BITMIME}); empty
   * after a HELO fallback.
   *
   * @return the extension lines, without the reply code
   */
  public List<String> extensions() {
    return extensions;
  }

  /**
   * Whether the last EHLO reply advertised {@code STARTTLS} (RFC 3207).
   *
   * @return true when the last EHLO reply advertised {@code STARTTLS}
   */
  public boolean offersStartTls() {
    for (String extension : extensions) {
      String keyword = extension.split(" ", 2)[0];
      if (keyword.equalsIgnoreCase("STARTTLS")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Upgrades the connection to TLS (RFC 3207): says {@code STARTTLS}, which must be answered
   * 220, has the transport do the handshake as {@code tls} says (the server's certificate
   * verified for the host connected to, unless the settings name another), then says
   * {@code EHLO domain} again, as the RFC requires, since what the server offers may change.
   * Returns that second EHLO's reply. Any reply the server sent past its 220 before the
   * handshake is refused by the transport ({@link io.weft.transport.StartTlsInjectionException}).
   *
   * @param tls the TLS settings of the handshake
   * @param domain the client's domain for the EHLO after the upgrade
   * @return the reply to the EHLO sent over TLS
   * @throws IllegalStateException if not READY, or the server did not advertise STARTTLS: a
   *     client that needs TLS must not carry on in plaintext, and a missing STARTTLS is what a
   *     downgrade attack looks like
   * @throws SmtpReplyException if the server refuses STARTTLS (4xx, 5xx)
   * @throws ProtocolViolationException if it answers another 2xx than 220: no handshake is tried,
   *     and the client is broken, since the server's idea of the stream is unknown
   * @throws io.weft.transport.TlsHandshakeException if the handshake fails
   */
  public SmtpReply startTls(TlsSettings tls, String domain) throws IOException {
    checkArgument("domain", domain);
    if (tls == null) {
      throw new IllegalArgumentException("tls == null");
    }
    expectState("STARTTLS", STATE_READY);
    if (!offersStartTls()) {
      throw new IllegalStateException("the server did not advertise STARTTLS in its EHLO reply: " + extensions);
    }
    SmtpReply ready = expect("STARTTLS", command("STARTTLS"), 2);
    if (ready.code() != 220) {
      // RFC 3207: 220 means "ready to start TLS"; another 2xx is not that, and to go ahead would
      // hand the handshake to a server that did not agree to it.
      ProtocolViolationException e = new ProtocolViolationException("STARTTLS answered " + ready.code() + " "
          + ProtocolViolationException.quote(ready.text()) + ", not 220 (ready to start TLS)");
      markBroken(e);
      throw e;
    }
    try {
      transport.startTls(tls);
    } catch (IOException | RuntimeException e) {
      markBroken(e);
      throw e;
    }
    // What the server said before TLS is forgotten; a new EHLO over TLS says it again.
    extensions = List.of();
    state = STATE_GREETED;
    return hello(domain);
  }

  /**
   * Starts a mail transaction: {@code MAIL FROM:<reversePath>}; empty for the null sender.
   *
   * @param reversePath the sender's address, without angle brackets; empty for the null sender
   * @return the accepted reply
   * @throws IOException a {@link SmtpReplyException} if the server refuses, or the transport fails
   */
  public SmtpReply mailFrom(String reversePath) throws IOException {
    checkPath("reversePath", reversePath);
    expectState("MAIL", STATE_READY);
    SmtpReply reply = expect("MAIL", command("MAIL FROM:<" + reversePath + ">"), 2);
    state = STATE_MAIL;
    return reply;
  }

  /**
   * Adds a recipient: {@code RCPT TO:<forwardPath>}. Call once per recipient.
   *
   * @param forwardPath the recipient's address, without angle brackets
   * @return the accepted reply
   * @throws IOException a {@link SmtpReplyException} if the server refuses, or the transport fails
   */
  public SmtpReply rcptTo(String forwardPath) throws IOException {
    checkPath("forwardPath", forwardPath);
    if (forwardPath.isEmpty()) {
      throw new IllegalArgumentException("empty forwardPath");
    }
    expectState("RCPT", STATE_MAIL, STATE_RCPT);
    SmtpReply reply = expect("RCPT", command("RCPT TO:<" + forwardPath + ">"), 2);
    state = STATE_RCPT;
    return reply;
  }

  /**
   * Sends {@code message} (headers, blank line, body) with {@code DATA}. Line ends are
   * normalised to CRLF (a bare LF or bare CR becomes CRLF), a line starting with '.' gets
   * another, and a final CRLF is added when the message lacks one. Returns the server's
   * acceptance; a refusal ends the transaction either way.
   *
   * @param message the message, headers and body
   * @return the server's acceptance
   * @throws IOException a {@link SmtpReplyException} if the server refuses, or the transport fails
   */
  public SmtpReply data(byte[] message) throws IOException {
    if (message == null) {
      throw new IllegalArgumentException("message == null");
    }
    expectState("DATA", STATE_RCPT);
    expect("DATA", command("DATA"), 3);
    try {
      writeDotStuffed(message);
      transport.write(END_OF_DATA);
      transport.flush();
    } catch (IOException | RuntimeException e) {
      markBroken(e);
      throw e;
    }
    state = STATE_READY;
    return expect("DATA", readReplyOrBreak(), 2);
  }

  /**
   * As {@link #data(byte[])}, with the message encoded as UTF-8.
   *
   * @param message the message, headers and body
   * @return the server's acceptance
   * @throws IOException a {@link SmtpReplyException} if the server refuses, or the transport fails
   */
  public SmtpReply data(String message) throws IOException {
    return data(message.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Sends one message: MAIL FROM, RCPT TO for each recipient, DATA.
   *
   * @param reversePath the sender's address; empty for the null sender
   * @param forwardPaths the recipients' addresses, at least one
   * @param message the message, headers and body
   * @return the server's acceptance of the message
   * @throws IOException a {@link SmtpReplyException} if the server refuses a step, or the transport fails
   */
  public SmtpReply send(String reversePath, List<String> forwardPaths, byte[] message) throws IOException {
    if (forwardPaths.isEmpty()) {
      throw new IllegalArgumentException("no recipients");
    }
    mailFrom(reversePath);
    for (String forwardPath : forwardPaths) {
      rcptTo(forwardPath);
    }
    return data(message);
  }

  /**
   * Aborts the current transaction, if any: {@code RSET}.
   *
   * @return the server's reply
   * @throws IOException a {@link SmtpReplyException} if the server refuses, or the transport fails
   */
  public SmtpReply rset() throws IOException {
    expectState("RSET", STATE_READY, STATE_MAIL, STATE_RCPT);
    SmtpReply reply = expect("RSET", command("RSET"), 2);
    state = STATE_READY;
    return reply;
  }

  /**
   * Ends the session: {@code QUIT}, which the server answers with 221.
   *
   * @return the server's reply
   * @throws IOException a {@link SmtpReplyException} if the server refuses, or the transport fails
   */
  public SmtpReply quit() throws IOException {
    expectState("QUIT", STATE_GREETED, STATE_READY, STATE_MAIL, STATE_RCPT);
    SmtpReply reply = expect("QUIT", command("QUIT"), 2);
    state = STATE_CLOSED;
    return reply;
  }

  private SmtpReply command(String line) throws IOException {
    try {
      transport.writeLine(line);
      transport.flush();
    } catch (IOException | RuntimeException e) {
      markBroken(e);
      throw e;
    }
    return readReplyOrBreak();
  }

  private SmtpReply readReplyOrBreak() throws IOException {
    try {
      return readReply();
    } catch (IOException | RuntimeException e) {
      markBroken(e);
      throw e;
    }
  }

  /** Reads one reply, all its lines: {@code 250-first}, ..., {@code 250 last}. */
  private SmtpReply readReply() throws IOException {
    List<String> lines = new ArrayList<>(1);
    int code = -1;
    long budget = maxReplyBytes == Integer.MAX_VALUE ? Long.MAX_VALUE : maxReplyBytes;
    for (;;) {
      long left = budget - LINE_COST - 2;
      String line;
      if (left >= maxLineBytes) {
        line = transport.readLineStrict(maxLineBytes);
      } else {
        try {
          line = left < MIN_LINE_BYTES ? null : transport.readLineStrict((int) left);
        } catch (LineTooLongException e) {
          throw overReplyBudget("in a line starting " + e.getMessage().substring(e.getMessage().indexOf(':') + 2));
        }
        if (line == null) {
          throw overReplyBudget("after " + lines.size() + " lines");
        }
      }
      budget = left - line.length();
      int lineCode = parseCode(line);
      if (code != -1 && lineCode != code) {
        throw new ProtocolViolationException("reply code changed from " + code + " inside a multi-line reply: "
            + ProtocolViolationException.quote(line));
      }
      code = lineCode;
      if (lines.size() == MAX_REPLY_LINES) {
        throw new ProtocolViolationException("reply longer than " + MAX_REPLY_LINES + " lines: "
            + ProtocolViolationException.quote(line));
      }
      if (line.length() == 3) {
        lines.add("");
        return new SmtpReply(code, lines);
      }
      char separator = line.charAt(3);
      lines.add(line.substring(4));
      if (separator == ' ') {
        return new SmtpReply(code, lines);
      }
      if (separator != '-') {
        throw new ProtocolViolationException("expected ' ' or '-' after the reply code: " + ProtocolViolationException.quote(line));
      }
    }
  }

  private ProtocolViolationException overReplyBudget(String where) {
    return new ProtocolViolationException("reply over the limit of " + maxReplyBytes
        + " bytes (maxReplyBytes: its lines with CRLF plus " + LINE_COST + " per line), " + where);
  }

  private static int parseCode(String line) throws ProtocolViolationException {
    if (line.length() < 3) {
      throw new ProtocolViolationException("reply line too short for a code: " + ProtocolViolationException.quote(line));
    }
    int code = 0;
    for (int i = 0; i < 3; i++) {
      char c = line.charAt(i);
      if (c < '0' || c > '9') {
        throw new ProtocolViolationException("non-numeric reply code: " + ProtocolViolationException.quote(line));
      }
      code = code * 10 + (c - '0');
    }
    if (code < 200 || code > 599) {
      throw new ProtocolViolationException("reply code out of range 2xx-5xx: " + ProtocolViolationException.quote(line));
    }
    return code;
  }

  private void writeDotStuffed(byte[] message) throws IOException {
    byte[] chunk = new byte[DATA_CHUNK + 2];
    int n = 0;
    boolean lineStart = true;
    for (int i = 0; i < message.length; i++) {
      if (n >= DATA_CHUNK) {
        transport.write(chunk, 0, n);
        n = 0;
      }
      byte b = message[i];
      if (b == '\r' || b == '\n') {
        if (b == '\r' && i + 1 < message.length && message[i + 1] == '\n') {
          i++;
        }
        chunk[n++] = '\r';
        chunk[n++] = '\n';
        lineStart = true;
        continue;
      }
      if (lineStart && b == '.') {
        chunk[n++] = '.';
      }
      chunk[n++] = b;
      lineStart = false;
    }
    if (!lineStart) {
      chunk[n++] = '\r';
      chunk[n++] = '\n';
    }
    transport.write(chunk, 0, n);
  }

  private SmtpReply expect(String command, SmtpReply reply, int codeClass) throws SmtpReplyException {
    if (reply.codeClass() != codeClass) {
      throw new SmtpReplyException(command, reply);
    }
    return reply;
  }

  private void markBroken(Exception e) {
    state = STATE_BROKEN;
    brokenBy = e.toString();
  }

  private void expectState(String command, int... allowed) {
    for (int s : allowed) {
      if (state == s) {
        return;
      }
    }
    if (state == STATE_BROKEN) {
      throw new IllegalStateException("client unusable after an earlier failure: " + brokenBy);
    }
    StringBuilder names = new StringBuilder();
    for (int s : allowed) {
      names.append(names.length() == 0 ? "" : " or ").append(STATE_NAMES[s]);
    }
    throw new IllegalStateException(command + " in state " + STATE_NAMES[state] + "; expected " + names);
  }

  private static void checkArgument(String name, String value) {
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException("empty " + name);
    }
    checkNoLineBreak(name, value);
  }

  private static void checkPath(String name, String value) {
    if (value == null) {
      throw new IllegalArgumentException(name + " == null");
    }
    checkNoLineBreak(name, value);
    if (value.indexOf('<') >= 0 || value.indexOf('>') >= 0) {
      throw new IllegalArgumentException("angle bracket in " + name + ": " + value);
    }
  }

  private static void checkNoLineBreak(String name, String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\r' || c == '\n') {
        throw new IllegalArgumentException("line break in " + name);
      }
    }
  }
}
