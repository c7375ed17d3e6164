package io.weft.protocols.callers;

import io.weft.protocols.pg.PgClient;
import io.weft.protocols.pg.PgOptions;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;

/** Opens a session the scripted server refuses with an ErrorResponse: PgClient throws PgException. */
public final class PgConnectTask implements SessionTask<String> {
  @Override
  public String run(Transport transport, int index) throws Exception {
    return PgClient.connect(transport, PgOptions.builder("weft").build()).toString();
  }
}
