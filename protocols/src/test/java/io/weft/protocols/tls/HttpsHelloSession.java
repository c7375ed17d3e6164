package io.weft.protocols.tls;

import io.weft.protocols.http.HttpClient;
import io.weft.protocols.http.HttpResponse;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/**
 * One HTTPS request through the plain {@link HttpClient}: {@code GET /hello} with
 * {@code Host: localhost}. Returns the body, then {@code |} and the negotiated TLS protocol.
 */
public class HttpsHelloSession implements SessionTask<String> {
  @Override
  public String run(Transport transport, int index) throws Exception {
    HttpResponse response = new HttpClient(transport, "localhost").get("/hello");
    if (response.status() != 200) {
      throw new AssertionError("status " + response.status());
    }
    Optional<SSLSession> tls = transport.tlsSession();
    return response.bodyUtf8() + "|" + (tls.isPresent() ? tls.get().getProtocol() : "plaintext");
  }
}
