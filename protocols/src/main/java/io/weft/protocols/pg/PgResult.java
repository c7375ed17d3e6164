package io.weft.protocols.pg;

import java.util.List;

/**
 * The outcome of one statement: its columns and rows as text (SQL NULL is {@code null}), and
 * the server's command tag ({@code SELECT 3}, {@code INSERT 0 1}, {@code CREATE TABLE}).
 *
 * @param columns the column names; empty for a statement that returns no rows
 * @param rows the rows, each as many values as there are columns, NULL as {@code null}
 * @param commandTag the command tag, or empty for an empty query
 */
public record PgResult(List<String> columns, List<List<String>> rows, String commandTag) {
  /**
   * Keeps unmodifiable copies of the lists (rows may hold nulls).
   *
   * @param columns the column names
   * @param rows the rows
   * @param commandTag the command tag
   */
  public PgResult {
    columns = List.copyOf(columns);
    rows = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(rows));
  }

  /**
   * One value.
   *
   * @param row the row's index
   * @param column the column's index
   * @return the value as text, or null for SQL NULL
   */
  public String value(int row, int column) {
    return rows.get(row).get(column);
  }

  /**
   * The number of rows the command affected or returned, from its tag ({@code UPDATE 7} is 7),
   * or -1 when the tag carries none ({@code CREATE TABLE}).
   *
   * @return the count, or -1
   */
  public long affectedRows() {
    int space = commandTag.lastIndexOf(' ');
    if (space < 0) {
      return -1;
    }
    try {
      return Long.parseLong(commandTag.substring(space + 1));
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
