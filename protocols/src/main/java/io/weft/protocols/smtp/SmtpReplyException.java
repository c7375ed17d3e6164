package io.weft.protocols.smtp;

import io.weft.transport.ProtocolViolationException;
import java.io.IOException;

/**
 * The server answered a command with a reply outside the class it succeeds with: a 4xx or 5xx,
 * or a 2xx where 354 was due. The connection itself is fine; what the session does next
 * (retry, {@code RSET}, {@code QUIT}) is the caller's choice.
 */
public class SmtpReplyException extends IOException {
  private static final long serialVersionUID = 1L;

  private final transient SmtpReply reply;
  /** The command word that was refused. */
  private final String command;

  /**
   * Creates the exception for a refused command.
   *
   * @param command the command word that was refused, such as {@code RCPT}
   * @param reply the server's reply
   */
  public SmtpReplyException(String command, SmtpReply reply) {
    super(command + " answered " + reply.code() + " " + ProtocolViolationException.quote(reply.text()));
    this.command = command;
    this.reply = reply;
  }

  /**
   * The reply code.
   *
   * @return the reply code
   */
  public int code() {
    return reply.code();
  }

  /**
   * The reply's text, lines joined with LF.
   *
   * @return the reply's text
   */
  public String text() {
    return reply.text();
  }

  /**
   * The whole reply.
   *
   * @return the reply
   */
  public SmtpReply reply() {
    return reply;
  }

  /**
   * The command word that was refused ({@code RCPT}).
   *
   * @return the command word
   */
  public String command() {
    return command;
  }

  /**
   * True for a 4xx reply: trying again later may succeed.
   *
   * @return true if the reply code is 4xx
   */
  public boolean isTransient() {
    return reply.codeClass() == 4;
  }
}
