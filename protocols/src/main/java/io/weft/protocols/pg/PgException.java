package io.weft.protocols.pg;

import java.io.IOException;
import java.util.Collections;
import java.util.Map;

/**
 * A PostgreSQL ErrorResponse: the server refused a statement, an authentication or a connection.
 * It carries the server's fields: {@link #sqlState()} (e.g. {@code 42P01} for an undefined
 * table), {@link #severity()} ({@code ERROR}, {@code FATAL}, {@code PANIC}) and
 * {@link #serverMessage()}. After an {@code ERROR} during a query the client has read on to the
 * server's ReadyForQuery, so the connection is usable for the next statement; after a
 * {@code FATAL} the server closes the connection.
 */
public class PgException extends IOException {
  private static final long serialVersionUID = 1L;

  /** SQLSTATE of a statement cancelled by a CancelRequest. */
  public static final String QUERY_CANCELED = "57014";

  /** The ErrorResponse's fields by their one-letter code; serialized with the exception. */
  private final Map<Character, String> fields;

  /**
   * Makes one from the response's fields.
   *
   * @param fields the fields by their one-letter code ('S', 'V', 'C', 'M', 'D', 'H', ...)
   */
  public PgException(Map<Character, String> fields) {
    super(describe(fields));
    this.fields = Collections.unmodifiableMap(fields);
  }

  static String describe(Map<Character, String> fields) {
    String severity = fields.getOrDefault('V', fields.getOrDefault('S', "ERROR"));
    return severity + " " + fields.getOrDefault('C', "?????") + ": " + fields.getOrDefault('M', "")
        + (fields.containsKey('D') ? " (" + fields.get('D') + ")" : "");
  }

  /**
   * The SQLSTATE code, five characters.
   *
   * @return the code, or {@code "?????"} if the server sent none
   */
  public String sqlState() {
    return fields.getOrDefault('C', "?????");
  }

  /**
   * The severity, not localized ({@code ERROR}, {@code FATAL}, {@code PANIC}).
   *
   * @return the severity
   */
  public String severity() {
    return fields.getOrDefault('V', fields.getOrDefault('S', "ERROR"));
  }

  /**
   * The server's primary message.
   *
   * @return the message, empty if none
   */
  public String serverMessage() {
    return fields.getOrDefault('M', "");
  }

  /**
   * One field of the response by its code (see PostgreSQL's "Error and Notice Message Fields").
   *
   * @param code the field's code, such as 'D' for the detail or 'H' for the hint
   * @return the field, or null if absent
   */
  public String field(char code) {
    return fields.get(code);
  }

  /**
   * Every field of the response.
   *
   * @return the fields by code, in the order they came
   */
  public Map<Character, String> fields() {
    return fields;
  }
}
