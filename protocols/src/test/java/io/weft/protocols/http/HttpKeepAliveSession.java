package io.weft.protocols.http;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;

/**
 * One session at scale against the JDK server of {@link HttpClientTest}: three requests on one
 * kept-alive connection (a GET framed by Content-Length, a chunked GET, a POST). Returns the
 * three bodies joined by {@code |}; a named class so the runner can load it by name.
 */
public class HttpKeepAliveSession implements SessionTask<String> {

  /** What session {@code index} must return. */
  public static String expected(int index) {
    return "GET /echo?s=" + index + " x=" + index
        + "|" + HttpClientTest.chunkedBody("s=" + index)
        + "|POST /echo?s=" + index + " x=" + index + " body=payload " + index;
  }

  @Override
  public String run(Transport transport, int index) throws Exception {
    HttpClient http = new HttpClient(transport, "localhost");
    HttpHeaders headers = HttpHeaders.of("X-Weft", Integer.toString(index));
    HttpResponse first = http.get("/echo?s=" + index, headers);
    HttpResponse second = http.get("/chunked?s=" + index);
    HttpResponse third = http.post("/echo?s=" + index, headers, ("payload " + index).getBytes("UTF-8"));
    if (first.status() != 200 || second.status() != 200 || third.status() != 200) {
      return "statuses " + first.status() + " " + second.status() + " " + third.status();
    }
    if (!http.isReusable()) {
      return "connection not reusable";
    }
    return first.bodyUtf8() + "|" + second.bodyUtf8() + "|" + third.bodyUtf8();
  }
}
