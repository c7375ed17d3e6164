package io.weft.perf.scaling;

import io.weft.perf.callback.CallbackTesterClient;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The hand-written MINA callback client: the async-by-hand baseline. */
public final class CallbackDriver implements SessionDriver {
  private final int ioProcessors;
  private final Map<TransportKind, CallbackTesterClient> clients = new EnumMap<>(TransportKind.class);

  /** {@code ioProcessors}: MINA I/O threads for TCP (the pipe has none of its own). */
  public CallbackDriver(int ioProcessors) {
    if (ioProcessors < 1) {
      throw new IllegalArgumentException("ioProcessors < 1: " + ioProcessors);
    }
    this.ioProcessors = ioProcessors;
  }

  @Override
  public String name() {
    return "CALLBACK";
  }

  @Override
  public String unavailableReason(Workload workload) {
    return null;
  }

  @Override
  public RunReport run(Workload workload) throws InterruptedException {
    CallbackTesterClient client = clients.computeIfAbsent(workload.transport,
        kind -> kind == TransportKind.PIPE
            ? CallbackTesterClient.overPipe()
            : CallbackTesterClient.overTcp(ioProcessors));
    CallbackTesterClient.Result result = client.run(workload.servers, workload.sessions,
        workload.transactions, workload.latency, workload.timeoutNanos, TimeUnit.NANOSECONDS,
        workload.connectsInFlight);
    return new RunReport(result.completed, result.failed, result.firstFailure, result.wallNanos,
        result.allEnded ? null : "timed out with sessions still running");
  }

  @Override
  public void close() {
    for (CallbackTesterClient client : clients.values()) {
      client.close();
    }
    clients.clear();
  }
}
