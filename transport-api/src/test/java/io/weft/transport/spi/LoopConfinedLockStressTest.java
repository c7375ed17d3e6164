package io.weft.transport.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A two-actor stress test of {@link LoopConfinedLock}'s exclusion, in the manner of a jcstress
 * test: the owner and a foreign thread each run many sections that read a
 * plain counter, spin a little, and write it back incremented. Any two sections that overlap lose
 * an increment. The outcome depends on scheduling, so it is kept out of the unit suite: it runs
 * only with {@code -Dweft.stressTests=true}. It is the check of the fences' order that the unit
 * tests (sequenced by latches) cannot make: with the owner's or the foreign thread's store made a
 * release store (or its load an acquire load), x86 lets the load pass the store, both sides enter,
 * and this test loses increments.
 *
 * <p>{@code -Dweft.stressSections=N} sets the sections per actor (default 20,000,000).
 */
@EnabledIfSystemProperty(named = "weft.stressTests", matches = "true",
    disabledReason = "a stress test whose outcome depends on scheduling: -Dweft.stressTests=true")
@Timeout(600)
class LoopConfinedLockStressTest {
  private static final int SECTIONS = Integer.getInteger("weft.stressSections", 20_000_000);

  /** Read, spin, write: two overlapping sections lose an increment. Guarded by the lock. */
  private int counter;

  @Test
  void theOwnerAndAForeignThreadNeverOverlap() throws Exception {
    LoopConfinedLock lock = new LoopConfinedLock();
    CountDownLatch bound = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    CompletableFuture<Void> owner = new CompletableFuture<>();
    CompletableFuture<Void> foreign = new CompletableFuture<>();
    Thread ownerThread = new Thread(() -> {
      try {
        lock.bindOwner();
        bound.countDown();
        go.await();
        sections(lock);
        owner.complete(null);
      } catch (Throwable e) {
        owner.completeExceptionally(e);
      }
    }, "stress owner");
    Thread foreignThread = new Thread(() -> {
      try {
        go.await();
        sections(lock);
        foreign.complete(null);
      } catch (Throwable e) {
        foreign.completeExceptionally(e);
      }
    }, "stress foreign");
    ownerThread.start();
    foreignThread.start();
    bound.await();
    go.countDown();
    owner.get();
    foreign.get();
    ownerThread.join();
    foreignThread.join();
    long confined = lock.confinedSections();
    assertEquals(2L * SECTIONS, counter, () -> "increments lost: two sections overlapped (the owner ran "
        + confined + " of its " + SECTIONS + " sections confined)");
  }

  private void sections(LoopConfinedLock lock) {
    for (int i = 0; i < SECTIONS; i++) {
      lock.lock();
      try {
        int v = counter;
        for (int s = 0; s < 4; s++) {
          Thread.onSpinWait();
        }
        counter = v + 1;
      } finally {
        lock.unlock();
      }
    }
  }
}
