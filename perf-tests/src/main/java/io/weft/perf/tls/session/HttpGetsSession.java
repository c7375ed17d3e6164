package io.weft.perf.tls.session;

import io.weft.protocols.http.HttpClient;
import io.weft.protocols.http.HttpResponse;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;

/**
 * The TLS cost benchmark's session: {@code requests} sequential {@code GET /hello} on one
 * kept-alive connection (over TLS or not: the connector decides). Returns how many succeeded.
 */
public class HttpGetsSession implements SessionTask<Integer> {
  private final int requests;

  public HttpGetsSession(int requests) {
    this.requests = requests;
  }

  @Override
  public Integer run(Transport transport, int index) throws Exception {
    HttpClient http = new HttpClient(transport, "localhost");
    for (int i = 0; i < requests; i++) {
      HttpResponse response = http.get("/hello");
      if (response.status() != 200) {
        throw new IllegalStateException("GET /hello: status " + response.status());
      }
    }
    return requests;
  }
}
