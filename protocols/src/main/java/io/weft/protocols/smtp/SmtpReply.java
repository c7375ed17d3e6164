package io.weft.protocols.smtp;

import java.util.List;

/** One SMTP reply: a three-digit code and the text of each of its lines. Immutable. */
public final class SmtpReply {
  private final int code;
  private final List<String> lines;

  SmtpReply(int code, List<String> lines) {
    this.code = code;
    this.lines = List.copyOf(lines);
  }

  /**
   * The reply code, 200 to 599.
   *
   * @return the reply code
   */
  public int code() {
    return code;
  }

  /**
   * The reply's class: its first digit (2 positive, 3 intermediate, 4 transient, 5 permanent).
   *
   * @return the first digit of the code
   */
  public int codeClass() {
    return code / 100;
  }

  /**
   * The text of each line, without code and separator; one (maybe empty) entry at least.
   *
   * @return the lines' text
   */
  public List<String> lines() {
    return lines;
  }

  /**
   * The lines' text joined with LF.
   *
   * @return the text
   */
  public String text() {
    return String.join("\n", lines);
  }

  @Override
  public String toString() {
    return code + " " + String.join(" | ", lines);
  }
}
