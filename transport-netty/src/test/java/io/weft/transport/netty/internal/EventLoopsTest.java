package io.weft.transport.netty.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.weft.continuations.spi.LoopThread;
import io.weft.transport.BlockingOperationException;
import io.weft.transport.NonBlockingThread;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The threads of a Weft Netty connector's event-loop group: Netty's own fast thread-local threads
 * and, at once, loop threads the continuation runtime resumes sessions on, where nothing blocks.
 */
class EventLoopsTest {
  private NioEventLoopGroup group;

  @BeforeEach
  void start() {
    group = new NioEventLoopGroup(1, EventLoops.threads("events-test-"));
  }

  @AfterEach
  void stop() {
    group.shutdownGracefully(0L, 5L, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private <T> T onLoop(Callable<T> task) throws Exception {
    return group.next().submit(task).get(10L, TimeUnit.SECONDS);
  }

  @Test
  void eventLoopThreadsAreFastThreadLocalThreadsAndLoopThreads() throws Exception {
    Thread thread = onLoop(Thread::currentThread);
    assertInstanceOf(FastThreadLocalThread.class, thread);
    assertInstanceOf(LoopThread.class, thread);
    assertInstanceOf(NonBlockingThread.class, thread);
    assertTrue(thread.isDaemon());
    assertTrue(thread.getName().startsWith("events-test-"), thread.getName());
  }

  @Test
  void nettyThreadLocalsOnTheLoopAreFieldsOfTheThread() throws Exception {
    FastThreadLocal<String> local = new FastThreadLocal<>();
    String seen = onLoop(() -> {
      local.set("on the loop");
      FastThreadLocalThread self = (FastThreadLocalThread) Thread.currentThread();
      // Netty keeps a fast thread's map in a field; a plain thread's goes through a ThreadLocal.
      return self.threadLocalMap() != null ? local.get() : null;
    });
    assertEquals("on the loop", seen);
  }

  @Test
  void theLoopRunsItsTasksInsideNoSessionAndClaimsOneSessionAtATime() throws Exception {
    String claims = onLoop(() -> {
      LoopThread loop = LoopThread.current();
      boolean before = loop.isRunningSession();
      boolean first = loop.enterSession();
      boolean nested = loop.enterSession();
      loop.exitSession();
      boolean again = loop.enterSession();
      loop.exitSession();
      return before + " " + first + " " + nested + " " + again + " " + loop.isRunningSession();
    });
    assertEquals("false true false true false", claims);
  }

  @Test
  void blockingOnTheLoopIsRefused() throws Exception {
    Throwable nettyCheck = onLoop(() -> thrown(() -> EventLoops.checkMayBlock("a read")));
    Throwable transportCheck = onLoop(() -> thrown(() -> NonBlockingThread.checkMayBlock("a read")));
    Throwable suspendCheck = onLoop(() -> thrown(() -> EventLoops.checkMaySuspend("input")));
    assertInstanceOf(BlockingOperationException.class, nettyCheck);
    assertInstanceOf(BlockingOperationException.class, transportCheck);
    assertInstanceOf(BlockingOperationException.class, suspendCheck);
    assertFalse(LoopThread.inEventLoop(), "the test thread taken for a loop thread");
    assertThrows(IllegalStateException.class, () -> LoopThread.runLoop((LoopThread) onLoop(Thread::currentThread), () -> { }));
  }

  private static Throwable thrown(Runnable r) {
    try {
      r.run();
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }
}
