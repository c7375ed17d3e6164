package io.weft.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.testsupport.EchoServer;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.spi.ReportsArrival;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The first arrival's watcher ({@link ReportsArrival}; a runner's connect window gives a place
 * back there and may run the next session inline on the event loop) runs on the event loop, but
 * not inside the transport's buffering of the input: not under its OutOfMemoryError handling,
 * which would take another session's failure for this one's "out of memory buffering input"
 * (review-load3-s15 risk 5). Real echo server on loopback TCP.
 */
class ArrivalWatcherTest {
  @Test
  void theWatcherRunsAfterTheInputIsBufferedNotInsideIt() throws Exception {
    try (EchoServer server = EchoServer.tcp();
         NettyConnector connector = NettyConnector.tcp();
         Transport t = connector.connect(server.address(), Timeout.of(30, TimeUnit.SECONDS))) {
      assertTrue(t instanceof ReportsArrival, t.getClass().getName());
      AtomicReference<StackTraceElement[]> stack = new AtomicReference<>();
      AtomicReference<String> thread = new AtomicReference<>();
      CountDownLatch ran = new CountDownLatch(1);
      ((ReportsArrival) t).whenHeardFrom(() -> {
        stack.set(new Throwable().getStackTrace());
        thread.set(Thread.currentThread().getName());
        ran.countDown();
      });
      t.writeLine("hello");
      t.flush();
      assertEquals("hello", t.readLine(256));
      // The watcher runs after the reader's wake-up: wait for it (no time bound asserted; the
      // latch's limit only ends a broken run).
      assertTrue(ran.await(60, TimeUnit.SECONDS), "the first arrival's watcher never ran");
      assertNotNull(stack.get());
      for (StackTraceElement e : stack.get()) {
        assertTrue(!e.getMethodName().equals("onInput"), "the watcher ran inside onInput on " + thread.get() + ": "
            + Arrays.toString(stack.get()));
      }
    }
  }
}
