package io.weft.simulation.clients;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.UUID;

/**
 * Draws a nonce as a SCRAM client does (a shared {@code SecureRandom} made in a static
 * initializer), an int from it, and a random UUID: a simulation draws all three from its seed.
 */
public final class SecureRandomClient implements SessionTask<String> {
  private static final SecureRandom RANDOM = new SecureRandom();

  public SecureRandomClient() {}

  @Override
  public String run(Transport transport, int session) {
    byte[] nonce = new byte[18];
    RANDOM.nextBytes(nonce);
    return HexFormat.of().formatHex(nonce) + " " + RANDOM.nextInt(1_000_000) + " " + UUID.randomUUID();
  }
}
