package io.weft.protocols.pg;

import java.util.Collections;
import java.util.Map;

/**
 * A PostgreSQL NoticeResponse: a warning or message that does not fail the statement.
 *
 * @param fields the notice's fields by their one-letter code ('V' severity, 'C' SQLSTATE, 'M'
 *     message)
 */
public record PgNotice(Map<Character, String> fields) {
  /**
   * Keeps an unmodifiable view of {@code fields}.
   *
   * @param fields the fields by code
   */
  public PgNotice {
    fields = Collections.unmodifiableMap(fields);
  }

  /**
   * The severity, not localized ({@code WARNING}, {@code NOTICE}, {@code INFO}, ...).
   *
   * @return the severity
   */
  public String severity() {
    return fields.getOrDefault('V', fields.getOrDefault('S', "NOTICE"));
  }

  /**
   * The SQLSTATE code.
   *
   * @return the code, or {@code "?????"}
   */
  public String sqlState() {
    return fields.getOrDefault('C', "?????");
  }

  /**
   * The primary message.
   *
   * @return the message
   */
  public String message() {
    return fields.getOrDefault('M', "");
  }

  @Override
  public String toString() {
    return PgException.describe(fields);
  }
}
