package io.weft.load.scenario.builtin;

import io.weft.load.record.OpRecorder;
import io.weft.load.scenario.Scenario;
import io.weft.protocols.smtp.SmtpClient;
import io.weft.transport.Transport;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * SMTP: on each connection reads the greeting and says EHLO (timed as {@code hello}); each
 * iteration sends one message of {@code size} bytes (default 1024) from {@code from} to
 * {@code to} (timed as {@code send}: MAIL FROM, RCPT TO, DATA and the server's acceptance).
 */
public final class SmtpScenario implements Scenario {
  private final String from;
  private final List<String> to;
  private final String domain;
  private final byte[] message;
  private SmtpClient smtp;

  public SmtpScenario(Map<String, String> params) {
    this.from = Params.string(params, "from", "load@weft.test");
    this.to = List.of(Params.string(params, "to", "sink@weft.test"));
    this.domain = Params.string(params, "domain", "weft.test");
    this.message = message(Params.integer(params, "size", 1024, 0), from, to.get(0));
  }

  /** A message of exactly {@code size} bytes (its headers included when they fit), in 76-character lines. */
  static byte[] message(int size, String from, String to) {
    StringBuilder b = new StringBuilder();
    String head = "From: <" + from + ">\r\nTo: <" + to + ">\r\nSubject: weft-load\r\n\r\n";
    if (head.length() <= size) {
      b.append(head);
    }
    int line = 0;
    while (b.length() < size) {
      if (size - b.length() >= 2 && line == 76) {
        b.append("\r\n");
        line = 0;
      } else {
        b.append((char) ('a' + (b.length() % 26)));
        line++;
      }
    }
    return b.toString().getBytes(StandardCharsets.US_ASCII);
  }

  @Override
  public void connected(Transport transport, OpRecorder ops) throws Exception {
    smtp = new SmtpClient(transport);
    OpRecorder.Timer t = ops.start("hello");
    smtp.greeting();
    smtp.hello(domain);
    t.stop();
  }

  @Override
  public void iteration(OpRecorder ops) throws Exception {
    OpRecorder.Timer t = ops.start("send");
    smtp.send(from, to, message);
    t.stop();
  }
}
