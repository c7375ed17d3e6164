package io.weft.perf.internal;

import java.net.SocketAddress;
import java.util.List;

/**
 * What the scaling harness needs of its echo server, in this JVM ({@link DelayingEchoServer})
 * or in a child JVM ({@link EchoServerProcess}): where to connect, how many lines came in, and
 * a hold on replies so that a run can be caught with every session waiting.
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
}
