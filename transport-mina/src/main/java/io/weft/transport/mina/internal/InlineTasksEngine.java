package io.weft.transport.mina.internal;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.BiFunction;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;

/**
 * An {@link SSLEngine} that runs the JDK engine's delegated tasks (certificate checks, key
 * agreement: CPU work, never a wait) at once on the calling thread, so that MINA's
 * {@code SslFilter} never sees {@code NEED_TASK}.
 *
 * <p>Why: MINA 2.2 hands delegated tasks to a static two-thread executor, and when a task fails
 * (an untrusted, expired or wrong-host certificate) it logs the error at ERROR and keeps it
 * pending until the session's next event, which may never come: the server waits for the
 * client's next flight, and the session would hang until its timeout. Here a task's failure
 * surfaces at the next {@code wrap}, which the status returned after the tasks
 * ({@code NEED_WRAP}, what MINA itself does after a task) makes MINA call at once; the JDK's
 * exception then goes up the filter chain to the handler, on the same event. A wrap the JDK did
 * not need produces nothing and reports its real status.
 */
final class InlineTasksEngine extends SSLEngine {
  private final SSLEngine engine;

  InlineTasksEngine(SSLEngine engine) {
    super(engine.getPeerHost(), engine.getPeerPort());
    this.engine = engine;
  }

  private SSLEngineResult afterTasks(SSLEngineResult result) {
    if (result.getHandshakeStatus() != HandshakeStatus.NEED_TASK) {
      return result;
    }
    runTasks();
    return new SSLEngineResult(result.getStatus(), HandshakeStatus.NEED_WRAP, result.bytesConsumed(),
        result.bytesProduced());
  }

  private void runTasks() {
    Runnable task;
    while ((task = engine.getDelegatedTask()) != null) {
      task.run();
    }
  }

  @Override
  public SSLEngineResult wrap(ByteBuffer[] srcs, int offset, int length, ByteBuffer dst) throws SSLException {
    return afterTasks(engine.wrap(srcs, offset, length, dst));
  }

  @Override
  public SSLEngineResult unwrap(ByteBuffer src, ByteBuffer[] dsts, int offset, int length) throws SSLException {
    return afterTasks(engine.unwrap(src, dsts, offset, length));
  }

  @Override
  public Runnable getDelegatedTask() {
    return null;
  }

  @Override
  public HandshakeStatus getHandshakeStatus() {
    HandshakeStatus status = engine.getHandshakeStatus();
    if (status == HandshakeStatus.NEED_TASK) {
      runTasks();
      return HandshakeStatus.NEED_WRAP;
    }
    return status;
  }

  @Override
  public void closeInbound() throws SSLException {
    engine.closeInbound();
  }

  @Override
  public boolean isInboundDone() {
    return engine.isInboundDone();
  }

  @Override
  public void closeOutbound() {
    engine.closeOutbound();
  }

  @Override
  public boolean isOutboundDone() {
    return engine.isOutboundDone();
  }

  @Override
  public String[] getSupportedCipherSuites() {
    return engine.getSupportedCipherSuites();
  }

  @Override
  public String[] getEnabledCipherSuites() {
    return engine.getEnabledCipherSuites();
  }

  @Override
  public void setEnabledCipherSuites(String[] suites) {
    engine.setEnabledCipherSuites(suites);
  }

  @Override
  public String[] getSupportedProtocols() {
    return engine.getSupportedProtocols();
  }

  @Override
  public String[] getEnabledProtocols() {
    return engine.getEnabledProtocols();
  }

  @Override
  public void setEnabledProtocols(String[] protocols) {
    engine.setEnabledProtocols(protocols);
  }

  @Override
  public SSLSession getSession() {
    return engine.getSession();
  }

  @Override
  public SSLSession getHandshakeSession() {
    return engine.getHandshakeSession();
  }

  @Override
  public void beginHandshake() throws SSLException {
    engine.beginHandshake();
  }

  @Override
  public void setUseClientMode(boolean mode) {
    engine.setUseClientMode(mode);
  }

  @Override
  public boolean getUseClientMode() {
    return engine.getUseClientMode();
  }

  @Override
  public void setNeedClientAuth(boolean need) {
    engine.setNeedClientAuth(need);
  }

  @Override
  public boolean getNeedClientAuth() {
    return engine.getNeedClientAuth();
  }

  @Override
  public void setWantClientAuth(boolean want) {
    engine.setWantClientAuth(want);
  }

  @Override
  public boolean getWantClientAuth() {
    return engine.getWantClientAuth();
  }

  @Override
  public void setEnableSessionCreation(boolean flag) {
    engine.setEnableSessionCreation(flag);
  }

  @Override
  public boolean getEnableSessionCreation() {
    return engine.getEnableSessionCreation();
  }

  @Override
  public SSLParameters getSSLParameters() {
    return engine.getSSLParameters();
  }

  @Override
  public void setSSLParameters(SSLParameters params) {
    engine.setSSLParameters(params);
  }

  @Override
  public String getApplicationProtocol() {
    return engine.getApplicationProtocol();
  }

  @Override
  public String getHandshakeApplicationProtocol() {
    return engine.getHandshakeApplicationProtocol();
  }

  @Override
  public void setHandshakeApplicationProtocolSelector(BiFunction<SSLEngine, List<String>, String> selector) {
    engine.setHandshakeApplicationProtocolSelector(selector);
  }

  @Override
  public BiFunction<SSLEngine, List<String>, String> getHandshakeApplicationProtocolSelector() {
    return engine.getHandshakeApplicationProtocolSelector();
  }
}
