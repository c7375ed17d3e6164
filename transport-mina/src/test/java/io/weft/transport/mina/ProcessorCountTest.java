package io.weft.transport.mina;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * How many NIO processors each MINA connector runs unless told otherwise: the continuation
 * connector one, as the Netty continuation connector runs one event loop (its sessions are
 * resumed on it, so more only add sleeps in {@code select} and wake-ups); the blocking connector
 * MINA's own default, one more than the cores; the in-VM pipe none; an explicit count as given.
 */
class ProcessorCountTest {
  private static final int MINA_DEFAULT = Runtime.getRuntime().availableProcessors() + 1;

  @Test
  void theContinuationConnectorRunsOneProcessorByDefault() throws Exception {
    try (SuspendingMinaConnector connector = SuspendingMinaConnector.tcp()) {
      assertEquals(1, connector.processorCount());
      assertEquals(1, connector.mina().processorCount());
    }
    try (SuspendingMinaConnector connector = SuspendingMinaConnector.builder().processorCount(0).tcp()) {
      assertEquals(1, connector.processorCount(), "0 asks for the default");
    }
  }

  @Test
  void theBlockingConnectorKeepsMinasDefault() throws Exception {
    try (MinaConnector connector = MinaConnector.tcp()) {
      assertEquals(MINA_DEFAULT, connector.processorCount());
    }
  }

  @Test
  void anExplicitCountIsKeptByBoth() throws Exception {
    try (SuspendingMinaConnector connector = SuspendingMinaConnector.builder().processorCount(3).tcp()) {
      assertEquals(3, connector.processorCount());
    }
    try (MinaConnector connector = MinaConnector.builder().processorCount(2).tcp()) {
      assertEquals(2, connector.processorCount());
    }
  }

  @Test
  void theInVmPipeRunsNone() throws Exception {
    try (SuspendingMinaConnector connector = SuspendingMinaConnector.vmPipe();
         MinaConnector blocking = MinaConnector.vmPipe()) {
      assertEquals(0, connector.processorCount());
      assertEquals(0, blocking.processorCount());
    }
  }
}
