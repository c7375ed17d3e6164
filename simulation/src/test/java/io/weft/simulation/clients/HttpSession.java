package io.weft.simulation.clients;

import io.weft.protocols.http.HttpClient;
import io.weft.protocols.http.HttpResponse;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Two GETs on one kept-alive connection; returns the second body. */
public final class HttpSession implements SessionTask<String> {
  public HttpSession() {}

  @Override
  public String run(Transport transport, int session) throws IOException {
    HttpClient http = new HttpClient(transport, "server");
    String body = null;
    for (int i = 0; i < 2; i++) {
      HttpResponse response = http.get("/items/" + session + "/" + i);
      if (response.status() != 200) {
        throw new ProtocolViolationException("status " + response.status());
      }
      body = new String(response.body(), StandardCharsets.UTF_8);
    }
    return body;
  }
}
