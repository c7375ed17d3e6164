package io.weft.protocols.http;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * An ordered list of HTTP header fields; names compare without regard to case. Request headers
 * are built with {@link #add}; response headers come back read-only in an {@link HttpResponse}.
 */
public final class HttpHeaders {
  /** Names and values of 12 fields. */
  private static final int RESPONSE_SLOTS = 24;
  /**
   * Field names servers send in most responses, as nginx, Apache, the JDK's server and most
   * frameworks spell them, and all in lower case (as HTTP/2 gateways pass them on): a response's
   * name spelled exactly so is this String, not a new one per response.
   */
  private static final String[] COMMON_NAMES = commonNames("Server", "Date", "Content-Type", "Content-Length",
      "Last-Modified", "Connection", "ETag", "Accept-Ranges", "Transfer-Encoding", "Cache-Control", "Expires",
      "Keep-Alive", "Location", "Vary", "Content-Encoding", "Set-Cookie", "Age", "Pragma", "Content-length",
      "Access-Control-Allow-Origin", "X-Content-Type-Options", "Strict-Transport-Security", "Content-Security-Policy",
      "X-Frame-Options");

  private final List<String> namesAndValues;
  private final boolean readOnly;

  /** An empty, modifiable list. */
  public HttpHeaders() {
    this(new ArrayList<>(), false);
  }

  private HttpHeaders(List<String> namesAndValues, boolean readOnly) {
    this.namesAndValues = namesAndValues;
    this.readOnly = readOnly;
  }

  /**
   * Shorthand for {@code new HttpHeaders().add(name, value)...} from name, value pairs.
   *
   * @param namesAndValues names and values in turn: name, value, name, value
   * @return a new, modifiable list
   */
  public static HttpHeaders of(String... namesAndValues) {
    if (namesAndValues.length % 2 != 0) {
      throw new IllegalArgumentException("odd number of names and values: " + namesAndValues.length);
    }
    HttpHeaders headers = new HttpHeaders();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      headers.add(namesAndValues[i], namesAndValues[i + 1]);
    }
    return headers;
  }

  /**
   * Appends a field. The name must be an HTTP token; the value is sent as ISO-8859-1, so it may
   * hold only characters up to U+00FF, and never CR, LF or NUL, which would let a value smuggle
   * in a header or a request of its own.
   *
   * @param name the field name, a token
   * @param value the field value
   * @return this list
   */
  public HttpHeaders add(String name, String value) {
    if (readOnly) {
      throw new UnsupportedOperationException("response headers are read-only");
    }
    checkName(name);
    checkValue(name, value);
    namesAndValues.add(name);
    namesAndValues.add(value.trim());
    return this;
  }

  /** Appends a field already checked by the parser. */
  void addParsed(String name, String value) {
    namesAndValues.add(name);
    namesAndValues.add(value);
  }

  /**
   * Empty headers for a response being parsed, with room for a typical server's fields (a
   * default {@code ArrayList} grew on the sixth).
   */
  static HttpHeaders forResponse() {
    return new HttpHeaders(new ArrayList<>(RESPONSE_SLOTS), false);
  }

  /**
   * These headers, read-only, over the same list: for a parser that hands them on and keeps no
   * reference that could change them (no copy per response).
   */
  HttpHeaders readOnly() {
    return new HttpHeaders(namesAndValues, true);
  }

  /**
   * The number of fields.
   *
   * @return the number of fields
   */
  public int size() {
    return namesAndValues.size() / 2;
  }

  /**
   * The name of field {@code index}, as sent.
   *
   * @param index the field's position, from 0
   * @return the field's name
   */
  public String name(int index) {
    return namesAndValues.get(index * 2);
  }

  /**
   * The value of field {@code index}, without surrounding whitespace.
   *
   * @param index the field's position, from 0
   * @return the field's value
   */
  public String value(int index) {
    return namesAndValues.get(index * 2 + 1);
  }

  /**
   * The value of the first field called {@code name}, or null.
   *
   * @param name the field name, in any case
   * @return the value, or null if there is no such field
   */
  public String get(String name) {
    for (int i = 0; i < namesAndValues.size(); i += 2) {
      if (namesAndValues.get(i).equalsIgnoreCase(name)) {
        return namesAndValues.get(i + 1);
      }
    }
    return null;
  }

  /**
   * The values of every field called {@code name}, in order.
   *
   * @param name the field name, in any case
   * @return the values; empty if there is no such field
   */
  public List<String> values(String name) {
    List<String> values = new ArrayList<>(2);
    for (int i = 0; i < namesAndValues.size(); i += 2) {
      if (namesAndValues.get(i).equalsIgnoreCase(name)) {
        values.add(namesAndValues.get(i + 1));
      }
    }
    return values;
  }

  /**
   * True if some field called {@code name} lists {@code token} among its comma-separated
   * values, ignoring case ({@code Connection: keep-alive, close} has {@code close}).
   *
   * @param name the field name, in any case
   * @param token the token to look for, in any case
   * @return true if one of the fields' comma-separated elements is {@code token}
   */
  public boolean hasToken(String name, String token) {
    for (int i = 0; i < namesAndValues.size(); i += 2) {
      if (namesAndValues.get(i).equalsIgnoreCase(name) && listHas(namesAndValues.get(i + 1), token)) {
        return true;
      }
    }
    return false;
  }

  /**
   * True if a comma-separated part of {@code value}, trimmed as {@link String#trim} trims, equals
   * {@code token} ignoring case; with no copies of the parts.
   */
  private static boolean listHas(String value, String token) {
    int n = value.length();
    int t = token.length();
    for (int start = 0; start <= n; ) {
      int comma = value.indexOf(',', start);
      int end = comma < 0 ? n : comma;
      int a = start;
      int b = end;
      while (a < b && value.charAt(a) <= ' ') {
        a++;
      }
      while (b > a && value.charAt(b - 1) <= ' ') {
        b--;
      }
      if (b - a == t && value.regionMatches(true, a, token, 0, t)) {
        return true;
      }
      start = end + 1;
    }
    return false;
  }

  /** The value of the last field named {@code name} (ignoring case), or null; no list made. */
  String last(String name) {
    String last = null;
    for (int i = 0; i < namesAndValues.size(); i += 2) {
      if (namesAndValues.get(i).equalsIgnoreCase(name)) {
        last = namesAndValues.get(i + 1);
      }
    }
    return last;
  }

  /** How many fields are named {@code name} (ignoring case). */
  int count(String name) {
    int count = 0;
    for (int i = 0; i < namesAndValues.size(); i += 2) {
      if (namesAndValues.get(i).equalsIgnoreCase(name)) {
        count++;
      }
    }
    return count;
  }

  static boolean isToken(String s) {
    return isToken(s, 0, s.length());
  }

  /** The same test on the bytes {@code b[from..to)}. */
  static boolean isToken(byte[] b, int from, int to) {
    if (from >= to) {
      return false;
    }
    for (int i = from; i < to; i++) {
      char c = (char) (b[i] & 0xff);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /**
   * The field name in {@code b[from..to)} (a token, so ASCII): one of {@link #COMMON_NAMES} if it
   * is spelled exactly so (the same String every time, nothing made), else a new String.
   */
  static String parsedName(byte[] b, int from, int to) {
    int length = to - from;
    String[] common = COMMON_NAMES;
    for (int k = 0; k < common.length; k++) {
      String name = common[k];
      if (name.length() == length && name.charAt(0) == b[from] && matches(name, b, from)) {
        return name;
      }
    }
    return new String(b, from, length, StandardCharsets.ISO_8859_1);
  }

  private static boolean matches(String name, byte[] b, int from) {
    for (int i = 1; i < name.length(); i++) {
      if (name.charAt(i) != b[from + i]) {
        return false;
      }
    }
    return true;
  }

  /** Whether {@code s[from..to)} is a token; a range, so that a parsed line is not cut up to ask. */
  static boolean isToken(String s, int from, int to) {
    if (from >= to) {
      return false;
    }
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  private static String[] commonNames(String... names) {
    Set<String> all = new LinkedHashSet<>();
    for (String name : names) {
      all.add(name);
      all.add(name.toLowerCase(Locale.ROOT));
    }
    return all.toArray(new String[0]);
  }

  private static void checkName(String name) {
    if (name == null || !isToken(name)) {
      throw new IllegalArgumentException("header name is not a token: " + name);
    }
  }

  private static void checkValue(String name, String value) {
    if (value == null) {
      throw new IllegalArgumentException("null value for header " + name);
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\r' || c == '\n' || c == 0) {
        throw new IllegalArgumentException("CR, LF or NUL in the value of header " + name);
      }
      if (c > 0xff) {
        throw new IllegalArgumentException("character beyond ISO-8859-1 in the value of header " + name);
      }
    }
  }

  @Override
  public String toString() {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < namesAndValues.size(); i += 2) {
      out.append(namesAndValues.get(i)).append(": ").append(namesAndValues.get(i + 1)).append('\n');
    }
    return out.toString();
  }

  /** Lower-cases a header name for comparisons where case does not matter. */
  static String lower(String name) {
    return name.toLowerCase(Locale.ROOT);
  }
}
