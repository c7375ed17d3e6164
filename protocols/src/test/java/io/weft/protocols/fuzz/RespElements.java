package io.weft.protocols.fuzz;

/**
 * Counts the RESP elements in a span of bytes that a reply took off the wire, for the fuzz
 * bound's per-element term: every line is the head of one element, and a bulk string's head
 * ({@code $n}, n at least 0) is followed by n bytes and CRLF that are not lines of their own. A
 * line that does not parse counts as an element too, and a span that ends inside a line counts
 * that line: the count errs high, so the bound errs loose, never tight.
 */
final class RespElements {
  private RespElements() {}

  static long count(byte[] bytes, int from, int to) {
    long count = 0;
    int i = from;
    while (i < to) {
      count++;
      int lf = i;
      while (lf < to && bytes[lf] != '\n') {
        lf++;
      }
      if (lf >= to) {
        break;
      }
      long next = lf + 1;
      if (bytes[i] == '$') {
        long length = length(bytes, i + 1, lf > i + 1 && bytes[lf - 1] == '\r' ? lf - 1 : lf);
        if (length >= 0) {
          next += length + 2;
        }
      }
      i = (int) Math.min(to, next);
    }
    return count;
  }

  /** The decimal at {@code [from, to)}, or -1 if it is not one of at most 18 digits. */
  private static long length(byte[] bytes, int from, int to) {
    if (from >= to || to - from > 18) {
      return -1;
    }
    long n = 0;
    for (int i = from; i < to; i++) {
      int digit = bytes[i] - '0';
      if (digit < 0 || digit > 9) {
        return -1;
      }
      n = n * 10 + digit;
    }
    return n;
  }
}
