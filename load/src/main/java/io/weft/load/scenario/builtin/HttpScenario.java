package io.weft.load.scenario.builtin;

import io.weft.load.record.OpRecorder;
import io.weft.load.scenario.Scenario;
import io.weft.protocols.http.HttpClient;
import io.weft.protocols.http.HttpHeaders;
import io.weft.protocols.http.HttpResponse;
import io.weft.transport.Transport;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1: each iteration sends one request ({@code method}, default GET; {@code path},
 * default /; {@code headers}, lines {@code Name: value} separated by newlines; {@code body})
 * to {@code host} and reads the whole response. The operation is named by the method. A status
 * of 400 or more counts as an error of kind {@code HTTP <status>}. With {@code keepAlive} false
 * the request says {@code Connection: close} and the next iteration connects anew.
 */
public final class HttpScenario implements Scenario {
  private final String method;
  private final String path;
  private final String host;
  private final HttpHeaders headers;
  private final byte[] body;
  private final boolean keepAlive;
  private Transport transport;
  private HttpClient http;

  public HttpScenario(Map<String, String> params) {
    this.method = Params.string(params, "method", "GET").toUpperCase(Locale.ROOT);
    this.path = Params.string(params, "path", "/");
    this.host = Params.string(params, "host", "localhost");
    this.keepAlive = Params.bool(params, "keepAlive", true);
    String b = params.get("body");
    this.body = b == null ? null : b.getBytes(StandardCharsets.UTF_8);
    this.headers = new HttpHeaders();
    String h = params.get("headers");
    if (h != null) {
      for (String line : h.split("\n")) {
        if (line.isBlank()) {
          continue;
        }
        int colon = line.indexOf(':');
        if (colon <= 0) {
          throw new IllegalArgumentException("bad header " + line + ": expected Name: value");
        }
        headers.add(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
      }
    }
    if (!keepAlive) {
      headers.add("Connection", "close");
    }
  }

  @Override
  public void connected(Transport transport, OpRecorder ops) {
    this.transport = transport;
    // A reconnect (Connection: close, or after a failure) starts its client's buffer at the size
    // the last connection's responses fitted, not at 2 KiB per connection.
    this.http = http == null ? new HttpClient(transport, host) : http.forNewConnection(transport);
  }

  @Override
  public void iteration(OpRecorder ops) throws Exception {
    OpRecorder.Timer t = ops.start(method);
    HttpResponse response = http.execute(method, path, headers, body);
    t.stop();
    if (response.status() >= 400) {
      ops.error(method, "HTTP " + response.status());
    }
    if (!keepAlive || !http.isReusable()) {
      transport.close();
    }
  }
}
