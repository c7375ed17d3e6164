package io.weft.protocols.fuzz;

import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.weft.protocols.http.HttpClient;
import io.weft.protocols.redis.RedisClient;
import io.weft.protocols.redis.RedisErrorException;
import io.weft.protocols.smtp.SmtpClient;
import io.weft.protocols.smtp.SmtpReplyException;
import io.weft.testsupport.InMemoryTransport;
import io.weft.transport.ProtocolViolationException;
import java.io.EOFException;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;

/**
 * Coverage-guided fuzz targets for the three reply parsers, each over an in-memory transport that
 * delivers the input whole and then one byte at a time. The property, for every reply read:
 * <ul>
 *   <li>it ends in a value or in one of the client's documented exceptions (a
 *       {@link ProtocolViolationException}, an {@link EOFException}, the client's own reply
 *       exception): nothing else, no {@link RuntimeException}, no {@link Error};</li>
 *   <li>it allocates at most 2 × the bytes it received + 64 KiB (this thread's allocated bytes,
 *       as HotSpot counts them; received: delivered to the transport's buffer during the call, or
 *       taken from that buffer by the reply, whichever is more), and for RESP
 *       {@link RedisClient#ALLOCATION_PER_ELEMENT} more per element of the reply, as RedisClient
 *       documents: an element can be as short as 3 bytes ({@code +\r\n}), and no Java object that
 *       stands for it costs 6 bytes (elements counted by {@link RespElements}); for HTTP
 *       {@link HttpClient#ALLOCATION_PER_CHUNK} more per chunk of a chunked body, as HttpClient
 *       documents (chunks counted by {@link HttpChunks}).</li>
 * </ul>
 *
 * <p>{@code ./mvnw verify} runs each target over its committed corpus
 * ({@code src/test/resources/io/weft/protocols/fuzz/ReplyFuzzTestInputs/<target>/}; findings are
 * added there as regression inputs); {@code .ci/fuzz} fuzzes each for a bounded time with
 * {@code JAZZER_FUZZ=1}. When the class is done it prints the largest allocation per received byte
 * it saw per client, over replies that received at least 256 bytes (smaller ones are dominated by
 * fixed costs).
 */
class ReplyFuzzTest {
  private static final long SLACK = 64 * 1024;
  /**
   * Fuzzing mode ({@code JAZZER_FUZZ} set): Jazzer's hooks allocate on the measured thread too, so
   * there the allocation is recorded and printed but not held to the bound (an input over it only
   * because of the hooks was once reported as a finding). The bound is checked without Jazzer: by
   * {@code verify} over the committed corpus, and by {@code .ci/fuzz}'s replay of the corpus it
   * generated ({@link ReplyAllocationsTest}).
   */
  private static final boolean FUZZING = System.getenv("JAZZER_FUZZ") != null
      && !System.getenv("JAZZER_FUZZ").isEmpty();
  private static final int RATIO_FROM_BYTES = 256;
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private static final Worst REDIS = Worst.redis();
  private static final Worst HTTP = Worst.http();
  private static final Worst SMTP = Worst.smtp();

  @FuzzTest(maxDuration = "60s")
  void redisReply(byte[] input) {
    // Twice: the first run pays the one-time costs (class loading, string-concatenation bootstraps)
    // of whatever paths this input takes; the second is what a reply costs, and is checked.
    redis(input, null);
    redis(input, REDIS);
  }

  @FuzzTest(maxDuration = "60s")
  void httpResponse(byte[] input) {
    http(input, null);
    http(input, HTTP);
  }

  @FuzzTest(maxDuration = "60s")
  void smtpReply(byte[] input) {
    smtp(input, null);
    smtp(input, SMTP);
  }

  static void redis(byte[] input, Worst worst) {
    for (InMemoryTransport transport : transports(input)) {
      RedisClient redis = new RedisClient(transport);
      while (measure(worst, input, transport, () -> redis.call("GET", "k"))) {
        // One reply after another until the input ends or breaks the client.
      }
    }
  }

  static void http(byte[] input, Worst worst) {
    for (InMemoryTransport transport : transports(input)) {
      HttpClient http = new HttpClient(transport, "fuzz.test");
      boolean head = input.length > 0 && (input[0] & 1) == 1;
      while (http.isReusable()
          && measure(worst, input, transport, () -> head ? http.head("/", null) : http.get("/"))) {
        // One response after another while the connection may be reused.
      }
    }
  }

  static void smtp(byte[] input, Worst worst) {
    for (InMemoryTransport transport : transports(input)) {
      SmtpClient smtp = new SmtpClient(transport);
      List<Step> steps = List.of(smtp::greeting, () -> smtp.hello("client.test"), () -> smtp.mailFrom("a@test"),
          () -> smtp.rcptTo("b@test"), () -> smtp.data(MESSAGE), smtp::quit);
      for (Step step : steps) {
        if (!measure(worst, input, transport, step)) {
          break;
        }
      }
    }
  }

  private static final byte[] MESSAGE = "Subject: x\r\n\r\nhi\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  @AfterAll
  static void report() {
    for (Worst worst : new Worst[] {REDIS, HTTP, SMTP}) {
      String line = worst.toString();
      if (line != null) {
        System.out.println(line);
      }
    }
  }

  private static InMemoryTransport[] transports(byte[] input) {
    return new InMemoryTransport[] {InMemoryTransport.of(input), InMemoryTransport.oneByteAtATime(input)};
  }

  /** Counts the elements (or chunks) in the bytes {@code [from, to)} of the input that a reply took. */
  interface Counter {
    long count(byte[] input, int from, int to);
  }

  interface Step {
    Object run() throws IOException;
  }

  /**
   * Reads one reply through {@code step} and checks the property (its allocation only when
   * {@code worst} is given); returns false once the reply
   * ended in an exception that leaves the client unusable (or the input is used up).
   */
  private static boolean measure(Worst worst, byte[] input, InMemoryTransport transport, Step step) {
    int deliveredBefore = transport.delivered();
    int unreadBefore = transport.unread();
    // The harness's record of the requests written would otherwise grow, by doubling, inside a
    // measured reply once a long input has made enough of them (a 64 KiB copy charged to a
    // 4-byte reply).
    transport.forgetWritten();
    long before = THREADS.getCurrentThreadAllocatedBytes();
    Throwable thrown = null;
    try {
      step.run();
    } catch (Throwable t) {
      thrown = t;
    }
    long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
    int unreadAfter = transport.unread();
    // What the reply received: delivered to the buffer while it was read, or taken from the
    // buffer if more (the input delivered whole arrives during the first reply, and the later
    // ones are parsed from what is already buffered).
    long received = Math.max(transport.delivered() - deliveredBefore, unreadBefore - unreadAfter);
    if (thrown != null && !documented(thrown)) {
      throw new AssertionError("undocumented exception: " + thrown, thrown);
    }
    if (worst != null) {
      long elements = worst.perElement == 0 ? 0
          : worst.elements.count(input, input.length - unreadBefore, input.length - unreadAfter);
      long bound = 2 * received + worst.perElement * elements + SLACK;
      if (allocated > bound && !FUZZING) {
        fail(worst.client + " allocated " + allocated + " bytes for a reply that received " + received + " bytes"
            + (worst.perElement == 0 ? ", over 2 x bytes + 64 KiB"
                : " in " + elements + " " + worst.element + "s, over 2 x bytes + " + worst.perElement + " x "
                    + worst.element + "s + 64 KiB"));
      }
      worst.record(allocated, received, elements);
    }
    // An SMTP refusal leaves the client in a state the next step of the script may not be allowed in.
    boolean usable = thrown == null || thrown instanceof RedisErrorException;
    return usable && transport.unread() > 0;
  }

  private static boolean documented(Throwable t) {
    return t instanceof ProtocolViolationException || t instanceof EOFException
        || t instanceof RedisErrorException || t instanceof SmtpReplyException;
  }

  /** The largest allocation per received byte one client was seen to make. */
  static final class Worst {
    final String client;
    /** What the bound's per-element term counts: "element" (RESP), "chunk" (HTTP). */
    final String element;
    /** What the bound allows per element of a reply beyond its bytes; 0 for no such term. */
    final long perElement;
    /** Counts a reply's elements in the bytes it took; null when perElement is 0. */
    final Counter elements;
    private final AtomicReference<long[]> worst = new AtomicReference<>();
    private final AtomicReference<long[]> worstPerElement = new AtomicReference<>();

    static Worst redis() {
      return new Worst("RedisClient", "element", RedisClient.ALLOCATION_PER_ELEMENT, RespElements::count);
    }

    static Worst http() {
      return new Worst("HttpClient", "chunk", HttpClient.ALLOCATION_PER_CHUNK, HttpChunks::count);
    }

    static Worst smtp() {
      return new Worst("SmtpClient", "element", 0, null);
    }

    Worst(String client, String element, long perElement, Counter elements) {
      this.client = client;
      this.element = element;
      this.perElement = perElement;
      this.elements = elements;
    }

    void record(long allocated, long received, long elements) {
      if (received < RATIO_FROM_BYTES) {
        return;
      }
      long[] seen = worst.get();
      if (seen == null || (double) allocated / received > (double) seen[0] / seen[1]) {
        worst.set(new long[] {allocated, received});
      }
      // Per element, beyond twice the bytes: what the per-element term of the bound must cover.
      long beyond = allocated - 2 * received;
      long[] seenPer = worstPerElement.get();
      if (elements >= RATIO_FROM_BYTES / 4
          && (seenPer == null || (double) beyond / elements > (double) seenPer[0] / seenPer[1])) {
        worstPerElement.set(new long[] {beyond, elements, allocated, received});
      }
    }

    @Override
    public String toString() {
      long[] seen = worst.get();
      if (seen == null) {
        return null;
      }
      String line = String.format(Locale.ROOT,
          "fuzz %s: largest allocation per received byte %.2f (%d bytes for a reply of %d bytes)",
          client, (double) seen[0] / seen[1], seen[0], seen[1]);
      long[] per = worstPerElement.get();
      if (per != null) {
        line += String.format(Locale.ROOT,
            "; largest allocation per %s beyond 2 x bytes %.1f (%d bytes for %d %ss in %d bytes)",
            element, (double) per[0] / per[1], per[2], per[1], element, per[3]);
      }
      return line;
    }
  }
}
