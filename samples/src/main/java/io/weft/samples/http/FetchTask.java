package io.weft.samples.http;

import io.weft.protocols.http.HttpClient;
import io.weft.protocols.http.HttpResponse;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.List;

/**
 * One keep-alive HTTP connection that fetches {@code perSession} paths in turn: session
 * {@code i} fetches paths {@code i * perSession} up to the next session's first. Returns the
 * bytes of body it read.
 *
 * <p>Constructor arguments cross into continuation mode's class loader, so they are JDK types
 * (a {@code String}, a {@code List<String>}, an {@code int}), and so is the result.
 */
public final class FetchTask implements SessionTask<Long> {
  private final String host;
  private final List<String> paths;
  private final int perSession;

  /**
   * @param host the {@code Host} header to send
   * @param paths every path to fetch, across all sessions
   * @param perSession how many of them each session fetches over its connection
   */
  public FetchTask(String host, List<String> paths, int perSession) {
    this.host = host;
    this.paths = List.copyOf(paths);
    this.perSession = perSession;
  }

  @Override
  public Long run(Transport transport, int index) throws Exception {
    HttpClient http = new HttpClient(transport, host);
    long bytes = 0;
    int end = Math.min(paths.size(), (index + 1) * perSession);
    for (int i = index * perSession; i < end; i++) {
      HttpResponse response = http.get(paths.get(i));   // suspends here in continuation mode
      if (response.status() != 200) {
        throw new IOException("GET " + paths.get(i) + ": " + response.status() + " " + response.reason());
      }
      bytes += response.bodyLength();
    }
    return bytes;
  }
}
