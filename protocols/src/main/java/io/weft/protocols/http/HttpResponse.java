package io.weft.protocols.http;

import java.nio.charset.StandardCharsets;

/** One HTTP response, read in full: status line, headers and body. Immutable. */
public final class HttpResponse {
  private final String version;
  private final int status;
  private final String reason;
  private final HttpHeaders headers;
  private final byte[] body;

  HttpResponse(String version, int status, String reason, HttpHeaders headers, byte[] body) {
    this.version = version;
    this.status = status;
    this.reason = reason;
    this.headers = headers;
    this.body = body;
  }

  /**
   * {@code HTTP/1.1} or {@code HTTP/1.0}.
   *
   * @return the HTTP version of the status line
   */
  public String version() {
    return version;
  }

  /**
   * The status code, 100 to 999.
   *
   * @return the status code
   */
  public int status() {
    return status;
  }

  /**
   * The reason phrase; may be empty.
   *
   * @return the reason phrase
   */
  public String reason() {
    return reason;
  }

  /**
   * The header fields, read-only.
   *
   * @return the header fields
   */
  public HttpHeaders headers() {
    return headers;
  }

  /**
   * The body, decoded from its transfer framing (empty for HEAD, 204 and 304). A copy.
   *
   * @return a copy of the body
   */
  public byte[] body() {
    return body.clone();
  }

  /**
   * The body's length in bytes.
   *
   * @return the body's length in bytes
   */
  public int bodyLength() {
    return body.length;
  }

  /**
   * The body decoded as UTF-8.
   *
   * @return the body as a string
   */
  public String bodyUtf8() {
    return new String(body, StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "HttpResponse{" + version + " " + status + " " + reason + ", " + body.length + " body bytes}";
  }
}
