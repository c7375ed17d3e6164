package io.weft.perf.internal;

import io.weft.testsupport.EchoServer;
import java.net.SocketAddress;
import java.util.List;

/**
 * What the scaling harness needs of its echo server, test-support's {@link EchoServer} either in
 * this JVM ({@link #inProcess}) or in a child JVM ({@link EchoServerProcess}): where to connect,
 * how many lines came in, and a hold on replies so that a run can be caught with every session
 * waiting.
 */
public interface BenchmarkEchoServer extends AutoCloseable {

  /** Where clients connect, one address per bound host. */
  List<SocketAddress> addresses();

  /** Line ends (LF) received since the server started. */
  long linesReceived();

  /** Keeps back every reply that falls due from now on, until {@link #release()}. */
  void hold();

  /** Stops holding; the replies kept back go out, each the delay from now. */
  void release();

  /** Stops the server; its sessions close. */
  @Override
  void close();

  /** {@code server}, in this JVM; closing the view closes the server. */
  static BenchmarkEchoServer inProcess(EchoServer server) {
    return new BenchmarkEchoServer() {
      @Override
      public List<SocketAddress> addresses() {
        return server.addresses();
      }

      @Override
      public long linesReceived() {
        return server.linesReceived();
      }

      @Override
      public void hold() {
        server.hold();
      }

      @Override
      public void release() {
        server.release();
      }

      @Override
      public void close() {
        server.close();
      }
    };
  }
}
