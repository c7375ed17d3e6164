package io.weft.simulation.servers;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A tiny HTTP/1.1 server: reads requests (request line, headers, a {@code Content-Length} body)
 * and answers each {@code 200 OK} with the body {@code <METHOD> <target> <n body bytes>}, keeping
 * the connection open until the client sends {@code Connection: close} or ends the stream. No
 * chunked requests; a HEAD gets the headers only.
 */
public final class HttpServer implements SessionTask<String> {
  private static final int LINE_LIMIT = 8 * 1024;
  private static final int MAX_HEADERS = 100;
  private static final int MAX_BODY = 1 << 20;

  /** An HTTP server. */
  public HttpServer() {}

  @Override
  public String run(Transport transport, int session) throws IOException {
    int served = 0;
    for (;;) {
      String requestLine = transport.readLine(LINE_LIMIT);
      if (requestLine == null) {
        return "served " + served;
      }
      String[] parts = requestLine.split(" ");
      if (parts.length != 3 || !parts[2].startsWith("HTTP/1.")) {
        throw new ProtocolViolationException("not an HTTP request line: " + ProtocolViolationException.quote(requestLine));
      }
      int length = 0;
      boolean close = parts[2].equals("HTTP/1.0");
      for (int i = 0; ; i++) {
        if (i == MAX_HEADERS) {
          throw new ProtocolViolationException("more than " + MAX_HEADERS + " header lines");
        }
        String header = transport.readLineStrict(LINE_LIMIT);
        if (header.isEmpty()) {
          break;
        }
        int colon = header.indexOf(':');
        if (colon <= 0) {
          throw new ProtocolViolationException("not a header line: " + ProtocolViolationException.quote(header));
        }
        String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
        String value = header.substring(colon + 1).trim();
        if (name.equals("content-length")) {
          length = Integer.parseInt(value);
          if (length < 0 || length > MAX_BODY) {
            throw new ProtocolViolationException("content-length out of range: " + length);
          }
        } else if (name.equals("connection")) {
          close = value.equalsIgnoreCase("close");
        }
      }
      if (length > 0) {
        transport.readBytes(length);
      }
      byte[] body = (parts[0] + " " + parts[1] + " " + length).getBytes(StandardCharsets.UTF_8);
      transport.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + body.length + "\r\n"
          + (close ? "Connection: close\r\n" : "") + "\r\n");
      if (!parts[0].equals("HEAD")) {
        transport.write(body);
      }
      transport.flush();
      served++;
      if (close) {
        return "served " + served;
      }
    }
  }
}
