package io.weft.samples.pg;

import io.weft.protocols.pg.PgClient;
import io.weft.protocols.pg.PgException;
import io.weft.protocols.pg.PgOptions;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;

/**
 * One PostgreSQL session, as the runner runs it: log in (SCRAM, or whatever the server asks),
 * run one parameterized query and one the server refuses, and return the first's answer. A public
 * class with a public constructor taking JDK types, so that continuation mode can load it by name
 * through its rewriting class loader.
 */
public final class QueryTask implements SessionTask<String> {
  private final String user;
  private final String password;
  private final String database;

  /**
   * @param user the user to log in as
   * @param password its password
   * @param database the database
   */
  public QueryTask(String user, String password, String database) {
    this.user = user;
    this.password = password;
    this.database = database;
  }

  @Override
  public String run(Transport transport, int index) throws Exception {
    PgClient pg = PgClient.connect(transport, PgOptions.builder(user).password(password).database(database).build());
    try {
      String doubled = pg.query("SELECT $1::int * 2", Integer.toString(index)).value(0, 0);
      try {
        pg.simpleQuery("SELECT * FROM no_such_table");
        throw new IllegalStateException("the server answered a query on a table that does not exist");
      } catch (PgException expected) {
        // 42P01: the statement failed, the session goes on.
        if (!expected.sqlState().equals("42P01")) {
          throw expected;
        }
      }
      return doubled;
    } finally {
      pg.close();
    }
  }
}
