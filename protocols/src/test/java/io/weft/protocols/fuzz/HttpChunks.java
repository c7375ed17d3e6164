package io.weft.protocols.fuzz;

/**
 * Counts the chunks in a span of bytes that one HTTP response took off the wire, for the fuzz
 * bound's per-chunk term. None unless a line of the span's header section names
 * {@code Transfer-Encoding} and holds {@code chunked} (any case); then every line after the
 * header section's empty line is the size line of one chunk, and one that parses as a hex size n
 * is followed by n bytes and CRLF that are not lines of their own. Interim responses' sections
 * and trailer lines count as chunks too, as does a line that does not parse, or one the span ends
 * inside: the count errs high, so the bound errs loose, never tight.
 */
final class HttpChunks {
  private HttpChunks() {}

  static long count(byte[] bytes, int from, int to) {
    int i = from;
    boolean chunked = false;
    // The header section: lines up to the first empty one.
    while (i < to) {
      int lf = lineEnd(bytes, i, to);
      int end = lf > i && bytes[lf - 1] == '\r' ? lf - 1 : lf;
      if (end == i) {
        i = lf + 1;
        break;
      }
      chunked |= namesChunked(bytes, i, end);
      i = lf + 1;
    }
    if (!chunked) {
      return 0;
    }
    long count = 0;
    while (i < to) {
      count++;
      int lf = lineEnd(bytes, i, to);
      if (lf >= to) {
        break;
      }
      long next = lf + 1;
      long size = hex(bytes, i, lf > i && bytes[lf - 1] == '\r' ? lf - 1 : lf);
      if (size > 0) {
        next += size + 2;
      }
      i = (int) Math.min(to, next);
    }
    return count;
  }

  private static int lineEnd(byte[] bytes, int from, int to) {
    int lf = from;
    while (lf < to && bytes[lf] != '\n') {
      lf++;
    }
    return lf;
  }

  private static boolean namesChunked(byte[] bytes, int from, int to) {
    String line = new String(bytes, from, to - from, java.nio.charset.StandardCharsets.ISO_8859_1)
        .toLowerCase(java.util.Locale.ROOT);
    return line.startsWith("transfer-encoding") && line.contains("chunked");
  }

  /** The hex size at the start of {@code [from, to)} (up to ';' or blanks), or -1 if none of at most 15 digits. */
  private static long hex(byte[] bytes, int from, int to) {
    long n = 0;
    int digits = 0;
    for (int i = from; i < to && digits <= 15; i++, digits++) {
      int digit = Character.digit(bytes[i], 16);
      if (digit < 0) {
        break;
      }
      n = n * 16 + digit;
    }
    return digits == 0 || digits > 15 ? -1 : n;
  }
}
