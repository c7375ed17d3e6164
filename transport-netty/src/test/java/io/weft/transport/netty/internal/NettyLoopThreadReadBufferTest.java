package io.weft.transport.netty.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.channel.nio.NioEventLoopGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The read buffer of a Weft Netty event-loop thread, asked for on a real event loop of a group
 * made by {@link EventLoops#threads}: exactly the guessed bytes writable, no buffer for a guess
 * above its size, none while someone else holds a reference to it, and, when it cannot be made,
 * no second try.
 */
class NettyLoopThreadReadBufferTest {
  private NioEventLoopGroup group;

  @BeforeEach
  void start() {
    group = new NioEventLoopGroup(1, EventLoops.threads("read-buffer-test-"));
  }

  @AfterEach
  void stop() {
    group.shutdownGracefully(0L, 5L, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private <T> T onLoop(Callable<T> task) throws Exception {
    return group.next().submit(task).get(10L, TimeUnit.SECONDS);
  }

  private static NettyLoopThread self() {
    return (NettyLoopThread) Thread.currentThread();
  }

  @Test
  void exactlyTheGuessedBytesAreWritableInTheOneBuffer() throws Exception {
    List<String> wrong = onLoop(() -> {
      List<String> found = new ArrayList<>();
      ByteBuf first = null;
      for (int guess : new int[] {64, 1_024, 2_048, 16_384, 65_535, NettyLoopThread.READ_BYTES, 1_024}) {
        ByteBuf buf = self().readBuffer(guess);
        if (buf == null) {
          found.add(guess + ": no buffer");
          continue;
        }
        if (first == null) {
          first = buf;
        } else if (buf != first) {
          found.add(guess + ": another buffer");
        }
        if (buf.writableBytes() != guess || buf.readableBytes() != 0 || buf.refCnt() != 2) {
          found.add(guess + ": " + buf.writableBytes() + " writable, " + buf.readableBytes() + " readable, refCnt "
              + buf.refCnt());
        }
        buf.writeZero(guess);
        buf.release();
      }
      return found;
    });
    assertEquals(List.of(), wrong);
  }

  @Test
  void aGuessAboveItsSizeTakesNoBuffer() throws Exception {
    assertEquals(65_536, NettyLoopThread.READ_BYTES);
    AtomicReference<ByteBuf> got = new AtomicReference<>();
    long uses = onLoop(() -> {
      got.set(self().readBuffer(NettyLoopThread.READ_BYTES + 1));
      return EventLoops.ownBufferReads();
    });
    assertNull(got.get(), "a buffer for a guess of " + (NettyLoopThread.READ_BYTES + 1));
    assertEquals(0L, uses);
  }

  @Test
  void aBufferSomeoneKeptIsNotReadIntoUntilGivenBack() throws Exception {
    List<Object> seen = onLoop(() -> {
      List<Object> steps = new ArrayList<>();
      ByteBuf buf = self().readBuffer(1_024);
      buf.writeByte(7);
      ByteBuf kept = buf.retainedSlice(); // a keeper's reference, as a decoder's cumulation takes
      buf.release(); // the reader's
      steps.add(self().readBuffer(1_024)); // refused while kept
      kept.release();
      steps.add(self().readBuffer(1_024)); // served again once given back
      return steps;
    });
    assertNull(seen.get(0), "read into a buffer someone still holds");
    ByteBuf again = (ByteBuf) seen.get(1);
    assertNotNull(again, "not served again once given back");
    assertEquals(1_024, again.writableBytes());
    onLoop(again::release);
  }

  @Test
  void aBufferThatCannotBeMadeIsNotTriedAgain() throws Exception {
    AtomicInteger tries = new AtomicInteger();
    // Fails as the JDK's direct allocation does when direct memory is exhausted (without exhausting it).
    AbstractByteBufAllocator noDirectMemory = new AbstractByteBufAllocator(true) {
      @Override
      protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        tries.incrementAndGet();
        throw new OutOfMemoryError("Cannot reserve " + initialCapacity + " bytes of direct buffer memory (test)");
      }

      @Override
      protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        throw new UnsupportedOperationException("the read buffer is direct");
      }

      @Override
      public boolean isDirectBufferPooled() {
        return false;
      }
    };
    List<ByteBuf> got = new ArrayList<>();
    Thread thread = new NettyLoopThread(() -> {
      for (int i = 0; i < 5; i++) {
        got.add(self().readBuffer(2_048));
      }
    }, "read-buffer-no-memory", noDirectMemory);
    thread.start();
    thread.join(TimeUnit.SECONDS.toMillis(10));
    assertEquals(5, got.size(), "the thread did not finish its reads");
    for (ByteBuf buf : got) {
      assertSame(null, buf);
    }
    assertEquals(1, tries.get(), "tries to make the read buffer");
  }
}
