package io.weft.protocols.isolation;

import io.weft.protocols.http.HttpClient;
import io.weft.protocols.redis.RedisClient;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.Arrays;

/**
 * Session {@code index} of the isolation run: every other one is a control (ten Redis round trips
 * that must all be right), the others each meet one kind of hostile server, with the limits a
 * user running 200 sessions in a 256 MiB heap would give them (a 1 MiB budget per reply), except
 * the claim, which keeps the defaults to show that a claim within them is not allocated ahead.
 * A control returns {@code "control ok"}; a hostile session returns the role and the exception
 * that ended it, or fails if none did.
 */
public class HostileOrControlSession implements SessionTask<String> {
  static final String[] HOSTILE_ROLES = {"claim", "nested", "chunked", "close"};
  private static final int BUDGET = 1024 * 1024;

  static String role(int index) {
    return index % 2 == 0 ? "control" : HOSTILE_ROLES[(index / 2) % HOSTILE_ROLES.length];
  }

  @Override
  public String run(Transport transport, int index) throws Exception {
    String role = role(index);
    try {
      switch (role) {
        case "control":
          return control(transport);
        case "claim":
          RedisClient claim = new RedisClient(transport);
          claim.callString("ROLE", role);
          return "claim returned a value";
        case "nested":
          RedisClient nested = new RedisClient(transport, RedisClient.DEFAULT_MAX_LINE_BYTES,
              RedisClient.DEFAULT_MAX_BULK_BYTES, RedisClient.DEFAULT_MAX_ARRAY_LENGTH, BUDGET);
          nested.call("ROLE", role);
          return "nested returned a value";
        default:
          HttpClient http = new HttpClient(transport, "hostile.test", HttpClient.DEFAULT_MAX_LINE_BYTES,
              HttpClient.DEFAULT_MAX_HEADER_BYTES, BUDGET);
          http.get("/" + role);
          return role + " returned a response";
      }
    } catch (IOException e) {
      if (role.equals("control")) {
        throw e;
      }
      return role + " " + e.getClass().getName() + ": " + e.getMessage();
    }
  }

  private static String control(Transport transport) throws IOException {
    RedisClient redis = new RedisClient(transport);
    String ok = redis.callString("ROLE", "control");
    for (int i = 0; i < 5; i++) {
      String pong = redis.callString("PING");
      byte[] value = (byte[]) redis.call("GET", "k");
      if (!"PONG".equals(pong) || !Arrays.equals(value, "value".getBytes(java.nio.charset.StandardCharsets.US_ASCII))) {
        return "control got " + pong + " and " + Arrays.toString(value);
      }
    }
    return "OK".equals(ok) ? "control ok" : "control got " + ok;
  }
}
