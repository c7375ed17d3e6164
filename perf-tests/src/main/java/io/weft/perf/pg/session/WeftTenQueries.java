package io.weft.perf.pg.session;

import io.weft.protocols.pg.PgClient;
import io.weft.protocols.pg.PgOptions;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;

/** One session of the comparison: log in, run {@code queries} extended queries, Terminate. */
public final class WeftTenQueries implements SessionTask<Long> {
  private final String user;
  private final String password;
  private final String database;
  private final int queries;

  public WeftTenQueries(String user, String password, String database, Integer queries) {
    this.user = user;
    this.password = password;
    this.database = database;
    this.queries = queries;
  }

  @Override
  public Long run(Transport transport, int index) throws Exception {
    PgClient pg = PgClient.connect(transport, PgOptions.builder(user).password(password).database(database).build());
    long sum = 0;
    for (int i = 0; i < queries; i++) {
      sum += Long.parseLong(pg.query("SELECT $1::int + $2::int", Integer.toString(index), Integer.toString(i)).value(0, 0));
    }
    pg.close();
    return sum;
  }
}
