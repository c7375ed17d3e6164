package io.weft.protocols.tls;

import io.weft.protocols.http.HttpClient;
import io.weft.protocols.http.HttpResponse;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;

/** A plaintext {@code GET /hello}, for a TLS port; returns the status and the body. */
public class PlainHttpOnTlsPortSession implements SessionTask<String> {
  @Override
  public String run(Transport transport, int index) throws Exception {
    HttpResponse response = new HttpClient(transport, "localhost").get("/hello");
    return response.status() + " " + response.bodyUtf8();
  }
}
