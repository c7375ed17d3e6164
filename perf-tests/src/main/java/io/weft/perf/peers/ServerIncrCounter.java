package io.weft.perf.peers;

import io.weft.protocols.redis.RedisClient;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Asks redis-server how many INCR calls it has served ({@code INFO commandstats}), over one
 * connection of its own kept for the whole benchmark: the server's count of each run's round
 * trips, independent of what the client says. Close it at the end.
 */
final class ServerIncrCounter implements AutoCloseable {
  private final SocketConnector connector = new SocketConnector();
  private final Transport transport;
  private final RedisClient redis;

  ServerIncrCounter(InetSocketAddress address) throws IOException {
    transport = connector.connect(address, Timeout.of(30, TimeUnit.SECONDS));
    redis = new RedisClient(transport);
  }

  /** INCR calls served since the server started. */
  long incrCalls() throws IOException {
    return incrCalls(redis.callString("INFO", "commandstats"));
  }

  /** The redis_version line of INFO server. */
  String serverVersion() throws IOException {
    for (String line : redis.callString("INFO", "server").split("\r?\n")) {
      if (line.startsWith("redis_version:")) {
        return line.substring("redis_version:".length()).trim();
      }
    }
    return "unknown";
  }

  /** The {@code calls=} of the {@code cmdstat_incr} line; 0 when the server has served none. */
  static long incrCalls(String commandStats) {
    for (String line : commandStats.split("\r?\n")) {
      if (line.startsWith("cmdstat_incr:")) {
        for (String field : line.substring("cmdstat_incr:".length()).split(",")) {
          if (field.startsWith("calls=")) {
            return Long.parseLong(field.substring("calls=".length()).trim());
          }
        }
      }
    }
    return 0L;
  }

  @Override
  public void close() {
    try {
      transport.close();
    } finally {
      connector.close();
    }
  }
}
