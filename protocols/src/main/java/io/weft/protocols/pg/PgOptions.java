package io.weft.protocols.pg;

import io.weft.transport.TlsSettings;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How a {@link PgClient} connects: the user, password and database, TLS, and the limits that
 * bound what a server can make the client hold. Immutable; made with {@link #builder(String)}.
 */
public final class PgOptions {
  /** Whether to ask the server for TLS (PostgreSQL's SSLRequest). */
  public enum TlsMode {
    /** Never ask: plaintext. */
    DISABLE,
    /**
     * Ask, and carry on in plaintext if the server says no. A man in the middle can say no for
     * the server: use only where plaintext is acceptable.
     */
    PREFER,
    /** Ask, and fail with {@link javax.net.ssl.SSLException} if the server says no. */
    REQUIRE
  }

  /** Whether SCRAM binds the authentication to the TLS channel (SCRAM-SHA-256-PLUS). */
  public enum ChannelBinding {
    /** Never bind. */
    DISABLE,
    /** Bind when TLS is on and the server offers SCRAM-SHA-256-PLUS (the default). */
    PREFER,
    /** Fail unless SCRAM-SHA-256-PLUS is used: a server that asks for anything else is refused. */
    REQUIRE
  }

  /** Default {@link Builder#messageLimit(int)}: 64 MiB. */
  public static final int DEFAULT_MESSAGE_LIMIT = 64 * 1024 * 1024;
  /** Default {@link Builder#rowLimit(int)}. */
  public static final int DEFAULT_ROW_LIMIT = 1_000_000;
  /** Default {@link Builder#fieldLimit(int)}: PostgreSQL's own limit of columns in a result. */
  public static final int DEFAULT_FIELD_LIMIT = 1664;

  private final String user;
  private final String password;
  private final String database;
  private final Map<String, String> parameters;
  private final TlsMode tlsMode;
  private final TlsSettings tls;
  private final ChannelBinding channelBinding;
  private final int messageLimit;
  private final int rowLimit;
  private final int fieldLimit;

  private PgOptions(Builder b) {
    this.user = b.user;
    this.password = b.password;
    this.database = b.database == null ? b.user : b.database;
    this.parameters = Map.copyOf(b.parameters);
    this.tlsMode = b.tlsMode;
    this.tls = b.tls;
    this.channelBinding = b.channelBinding;
    this.messageLimit = b.messageLimit;
    this.rowLimit = b.rowLimit;
    this.fieldLimit = b.fieldLimit;
  }

  /**
   * A builder for {@code user}.
   *
   * @param user the user to connect as
   * @return a new builder
   */
  public static Builder builder(String user) {
    return new Builder(user);
  }

  /** {@return the user name} */
  public String user() {
    return user;
  }

  /** {@return the password, or null for none} */
  public String password() {
    return password;
  }

  /** {@return the database; the user name unless set} */
  public String database() {
    return database;
  }

  /** {@return further startup parameters} */
  public Map<String, String> parameters() {
    return parameters;
  }

  /** {@return whether to ask for TLS} */
  public TlsMode tlsMode() {
    return tlsMode;
  }

  /** {@return the TLS settings of the upgrade} */
  public TlsSettings tls() {
    return tls;
  }

  /** {@return whether to bind SCRAM to the TLS channel} */
  public ChannelBinding channelBinding() {
    return channelBinding;
  }

  /** {@return the largest message body accepted, in bytes} */
  public int messageLimit() {
    return messageLimit;
  }

  /** {@return the most rows one statement's result may hold} */
  public int rowLimit() {
    return rowLimit;
  }

  /** {@return the most columns a result may have} */
  public int fieldLimit() {
    return fieldLimit;
  }

  @Override
  public String toString() {
    return "PgOptions{user=" + user + ", database=" + database + ", tls=" + tlsMode
        + ", channelBinding=" + channelBinding + ", password=" + (password == null ? "none" : "***") + "}";
  }

  /** Builds {@link PgOptions}. */
  public static final class Builder {
    private final String user;
    private String password;
    private String database;
    private final Map<String, String> parameters = new LinkedHashMap<>();
    private TlsMode tlsMode = TlsMode.DISABLE;
    private TlsSettings tls = TlsSettings.defaults();
    private ChannelBinding channelBinding = ChannelBinding.PREFER;
    private int messageLimit = DEFAULT_MESSAGE_LIMIT;
    private int rowLimit = DEFAULT_ROW_LIMIT;
    private int fieldLimit = DEFAULT_FIELD_LIMIT;

    private Builder(String user) {
      this.user = Objects.requireNonNull(user, "user");
    }

    /**
     * The password, for cleartext, MD5 or SCRAM authentication.
     *
     * @param password the password
     * @return this builder
     */
    public Builder password(String password) {
      this.password = password;
      return this;
    }

    /**
     * The database; the user name by default, as in libpq.
     *
     * @param database the database name
     * @return this builder
     */
    public Builder database(String database) {
      this.database = Objects.requireNonNull(database, "database");
      return this;
    }

    /**
     * A further startup parameter ({@code application_name}, {@code search_path}, ...).
     *
     * @param name the parameter's name
     * @param value its value
     * @return this builder
     */
    public Builder parameter(String name, String value) {
      parameters.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /**
     * Ask for TLS as {@code mode} says, upgrading with {@code settings} (trust, host name).
     *
     * @param mode whether TLS is required, preferred or off
     * @param settings the TLS settings of the upgrade
     * @return this builder
     */
    public Builder tls(TlsMode mode, TlsSettings settings) {
      this.tlsMode = Objects.requireNonNull(mode, "mode");
      this.tls = Objects.requireNonNull(settings, "settings");
      return this;
    }

    /**
     * Whether SCRAM binds to the TLS channel; {@link ChannelBinding#PREFER} by default.
     *
     * @param binding the policy
     * @return this builder
     */
    public Builder channelBinding(ChannelBinding binding) {
      this.channelBinding = Objects.requireNonNull(binding, "binding");
      return this;
    }

    /**
     * The largest message body accepted, in bytes; larger is a protocol violation before it is read.
     *
     * @param bytes the limit, at least 1024
     * @return this builder
     */
    public Builder messageLimit(int bytes) {
      if (bytes < 1024) {
        throw new IllegalArgumentException("messageLimit < 1024: " + bytes);
      }
      this.messageLimit = bytes;
      return this;
    }

    /**
     * The most rows one statement's result may hold.
     *
     * @param rows the limit, at least 1
     * @return this builder
     */
    public Builder rowLimit(int rows) {
      if (rows < 1) {
        throw new IllegalArgumentException("rowLimit < 1: " + rows);
      }
      this.rowLimit = rows;
      return this;
    }

    /**
     * The most columns a result may have.
     *
     * @param fields the limit, at least 1
     * @return this builder
     */
    public Builder fieldLimit(int fields) {
      if (fields < 1) {
        throw new IllegalArgumentException("fieldLimit < 1: " + fields);
      }
      this.fieldLimit = fields;
      return this;
    }

    /**
     * Makes the options.
     *
     * @return the options
     */
    public PgOptions build() {
      return new PgOptions(this);
    }
  }
}
