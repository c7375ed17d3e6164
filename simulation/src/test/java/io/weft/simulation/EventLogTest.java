package io.weft.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The log's SHA-256 is the digest of every record's 32 bytes, in order, whether the records were
 * hashed on the caller's thread (a short log) or by the hashing thread, buffer by buffer.
 */
class EventLogTest {
  /** The digest of {@code n} records as {@link #fill} writes them, taken here in one thread. */
  private static String expected(int n) throws Exception {
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    ByteBuffer record = ByteBuffer.allocate(32);
    for (int i = 0; i < n; i++) {
      record.clear();
      record.putLong(1_000L * i).putLong(i).putLong(-i).putLong(((long) (i * 31) << 8) | (i % 18));
      sha.update(record.array());
    }
    return HexFormat.of().formatHex(sha.digest());
  }

  private static void fill(EventLog log, int from, int to) {
    for (int i = from; i < to; i++) {
      log.add(1_000L * i, i % 18, i, -i, i * 31);
    }
  }

  @Test
  void shortLogHashedOnTheCallersThread() throws Exception {
    EventLog log = new EventLog(false);
    fill(log, 0, 1_000);
    assertEquals(expected(1_000), log.sha256());
    assertEquals(1_000, log.count());
  }

  @Test
  void longLogHashedByTheHashingThreadInOrder() throws Exception {
    // 150 buffers of 2,048 records and a partial one: more than the hashing thread may fall
    // behind, so the writer waits for it at least once when it is slow.
    int n = 150 * 2_048 + 77;
    EventLog log = new EventLog(false);
    for (int from = 0; from < n; from += 10_000) {
      fill(log, from, Math.min(n, from + 10_000));
      if (log.behind()) {
        log.keepUp();
        assertFalse(log.behind());
      }
    }
    assertEquals(expected(n), log.sha256());
    assertEquals(expected(n), log.sha256());
  }

  @Test
  void abandonedLogEndsItsThread() {
    EventLog log = new EventLog(false);
    fill(log, 0, 10 * 2_048);
    assertTrue(log.hashing(), "no hashing thread started");
    log.abandon();
    assertFalse(log.hashing());
    assertEquals("", log.sha256());
  }
}
