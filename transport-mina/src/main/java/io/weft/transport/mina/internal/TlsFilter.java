package io.weft.transport.mina.internal;

import io.weft.transport.TlsSettings;
import io.weft.transport.spi.Tls;
import java.net.InetSocketAddress;
import javax.net.ssl.SSLEngine;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.filter.ssl.SslFilter;

/**
 * MINA 2.2's {@link SslFilter} for one client session, with Weft's engine: made from
 * {@link TlsSettings} for the host the transport connected to (SNI and endpoint identification as
 * the settings say, never a reverse lookup: MINA's own engine takes the host from the resolved
 * remote address), and running its delegated tasks inline (see {@link InlineTasksEngine}).
 *
 * <p>One instance per session. Added to the session's chain by the connect's initializer with
 * {@code startNow} false (implicit TLS: the handshake starts when the session opens), or to a live
 * session with {@code startNow} true (STARTTLS: the handshake starts as it is added). The
 * handshake's end reaches the handler as {@code SslEvent.SECURED}, its failure as an exception.
 */
public final class TlsFilter extends SslFilter {
  /** The filter's name in the session's chain. */
  public static final String NAME = "weft-tls";

  private final TlsSettings settings;
  private final String host;
  private final int port;

  public TlsFilter(TlsSettings settings, String host, int port, boolean startNow) {
    super(settings.context(), startNow);
    this.settings = settings;
    this.host = host;
    this.port = port;
  }

  @Override
  protected SSLEngine createEngine(IoSession session, InetSocketAddress addr) {
    return new InlineTasksEngine(Tls.newEngine(settings, host, port));
  }
}
