package io.weft.simulation.servers;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.Locale;

/**
 * A tiny SMTP server: greets, answers EHLO/HELO, MAIL, RCPT, DATA (up to the lone dot), RSET,
 * NOOP and QUIT, in order or with {@code 503}. It accepts every message ({@code 250 queued as
 * <n>}) and offers no extension beyond {@code 8BITMIME} and {@code SIZE}: no STARTTLS, since TLS is
 * not simulated.
 */
public final class SmtpServer implements SessionTask<String> {
  private static final int LINE_LIMIT = 1000;
  private static final int MAX_MESSAGE_LINES = 100_000;

  private int queued;

  /** An SMTP server. */
  public SmtpServer() {}

  @Override
  public String run(Transport t, int session) throws IOException {
    reply(t, "220 sim.example ESMTP ready");
    boolean greeted = false;
    boolean mail = false;
    int recipients = 0;
    for (;;) {
      String line = t.readLine(LINE_LIMIT);
      if (line == null) {
        return "client left";
      }
      String verb = (line.length() >= 4 ? line.substring(0, 4) : line).toUpperCase(Locale.ROOT);
      switch (verb) {
        case "EHLO":
          greeted = true;
          t.write("250-sim.example greets you\r\n250-8BITMIME\r\n");
          reply(t, "250 SIZE 10485760");
          break;
        case "HELO":
          greeted = true;
          reply(t, "250 sim.example");
          break;
        case "MAIL":
          if (!greeted || mail) {
            reply(t, "503 bad sequence of commands");
          } else {
            mail = true;
            recipients = 0;
            reply(t, "250 OK");
          }
          break;
        case "RCPT":
          if (!mail) {
            reply(t, "503 need MAIL first");
          } else {
            recipients++;
            reply(t, "250 OK");
          }
          break;
        case "DATA":
          if (recipients == 0) {
            reply(t, "503 need RCPT first");
            break;
          }
          reply(t, "354 end with <CRLF>.<CRLF>");
          readMessage(t);
          mail = false;
          recipients = 0;
          reply(t, "250 queued as " + (++queued));
          break;
        case "RSET":
          mail = false;
          recipients = 0;
          reply(t, "250 OK");
          break;
        case "NOOP":
          reply(t, "250 OK");
          break;
        case "QUIT":
          reply(t, "221 bye");
          return "queued " + queued;
        default:
          reply(t, "502 command not implemented");
          break;
      }
    }
  }

  private static void readMessage(Transport t) throws IOException {
    for (int i = 0; i < MAX_MESSAGE_LINES; i++) {
      if (t.readLineStrict(LINE_LIMIT).equals(".")) {
        return;
      }
    }
    throw new io.weft.transport.ProtocolViolationException("message over " + MAX_MESSAGE_LINES + " lines");
  }

  private static void reply(Transport t, String line) throws IOException {
    t.writeLine(line);
    t.flush();
  }
}
