package io.weft.protocols.redis;

import io.weft.protocols.internal.GrowingBytes;
import io.weft.protocols.internal.Wire;
import io.weft.transport.LineParser;
import io.weft.transport.LineParsing;
import io.weft.transport.LineTooLongException;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.Transport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A Redis client speaking RESP2 over one {@link Transport}: any command, given as its
 * arguments; replies of all five types; pipelining.
 *
 * <h2>Replies</h2>
 * <table>
 *   <caption>How each RESP2 reply type is returned</caption>
 *   <tr><th>reply</th><th>first byte</th><th>returned as</th></tr>
 *   <tr><td>simple string</td><td>{@code +}</td><td>{@link String}</td></tr>
 *   <tr><td>error</td><td>{@code -}</td><td>thrown as {@link RedisErrorException}; inside an
 *       array or a pipeline, returned in place as one without a stack trace (it is a reply, and
 *       costs about its own bytes)</td></tr>
 *   <tr><td>integer</td><td>{@code :}</td><td>{@link Long}</td></tr>
 *   <tr><td>bulk string</td><td>{@code $}</td><td>{@code byte[]}; {@code null} for the null bulk
 *       string</td></tr>
 *   <tr><td>array</td><td>{@code *}</td><td>{@link List} of these (nested lists included);
 *       {@code null} for the null array</td></tr>
 * </table>
 *
 * <h2>Lifecycle</h2>
 * {@code READY} (a new client, and after every complete reply, error replies included) ⇄
 * {@code PENDING} (commands sent with {@link #send} whose replies have not been read) →
 * {@code BROKEN} after any {@link IOException} other than an error reply: a protocol violation,
 * an end of stream or a timeout leaves the stream at an unknown point, so every later call
 * throws {@link IllegalStateException}. The client owns nothing but its state: close the
 * transport to end the connection.
 *
 * <h2>Limits</h2>
 * Memory follows the bytes received, never what the server claims: a bulk string grows in steps
 * of at most 16 KiB as its bytes arrive, an array as its elements arrive. Every line is read with
 * a byte limit, every length is checked against its limit, and each reply as a whole has a
 * budget: the bytes received for it plus {@value #ELEMENT_COST} per element (at least what a parsed
 * element keeps on the heap beyond its bytes: measured, at most 84 bytes, for an error element
 * such as {@code -ERR x}). Going over any of them is a {@link ProtocolViolationException} naming
 * the limit.
 *
 * <p>What reading a reply allocates, garbage included, is at most 2 × its bytes +
 * {@value #ALLOCATION_PER_ELEMENT} per element + 64 KiB (checked by the fuzz tests; measured, at
 * most 142 bytes per element, for error elements of one character). An element can be as short
 * as 3 bytes ({@code +\r\n}) and no Java object that stands for it costs 6, so no bound in bytes
 * alone holds for arrays of many tiny elements; since {@value #ALLOCATION_PER_ELEMENT} is at most
 * 2 × {@value #ELEMENT_COST}, a reply within its budget allocates at most 2 × {@code maxReplyBytes}
 * + 64 KiB.
 * <table>
 *   <caption>Limits and their defaults</caption>
 *   <tr><th>limit</th><th>default</th><th>least accepted</th></tr>
 *   <tr><td>{@code maxLineBytes}: a status, error, integer or length line</td>
 *       <td>{@value #DEFAULT_MAX_LINE_BYTES}</td><td>{@value #MIN_LINE_BYTES}</td></tr>
 *   <tr><td>{@code maxBulkBytes}: one bulk string</td><td>{@value #DEFAULT_MAX_BULK_BYTES}</td><td>0</td></tr>
 *   <tr><td>{@code maxArrayLength}: elements of one array</td><td>{@value #DEFAULT_MAX_ARRAY_LENGTH}</td><td>0</td></tr>
 *   <tr><td>{@code maxReplyBytes}: one whole reply, as above</td><td>{@value #DEFAULT_MAX_REPLY_BYTES}</td>
 *       <td>{@value #MIN_REPLY_BYTES}</td></tr>
 *   <tr><td>{@link #MAX_NESTING}: depth of nested arrays</td><td>{@value #MAX_NESTING}</td><td>fixed</td></tr>
 * </table>
 * {@link Integer#MAX_VALUE} for a limit means no limit of the client's own (a bulk string still
 * cannot pass what one Java array holds).
 *
 * <p>Not thread-safe: one client per session, like its transport.
 */
public final class RedisClient {
  /** Longest status, error or length line accepted, in bytes without CRLF. */
  public static final int DEFAULT_MAX_LINE_BYTES = 64 * 1024;
  /** Largest bulk string accepted. */
  public static final int DEFAULT_MAX_BULK_BYTES = 64 * 1024 * 1024;
  /** Most elements accepted in one array. */
  public static final int DEFAULT_MAX_ARRAY_LENGTH = 1024 * 1024;
  /** Largest reply accepted: its bytes received plus {@value #ELEMENT_COST} per element. */
  public static final int DEFAULT_MAX_REPLY_BYTES = 128 * 1024 * 1024;
  /** Deepest nesting of arrays accepted; deeper is treated as hostile. */
  public static final int MAX_NESTING = 32;
  /** What each element of a reply costs against the reply's budget, beyond its bytes. */
  public static final int ELEMENT_COST = 96;
  /** What reading a reply may allocate per element beyond 2 × its bytes (see the class javadoc). */
  public static final int ALLOCATION_PER_ELEMENT = 160;
  /** The shortest line limit accepted: an integer reply {@code :-9223372036854775808} needs it. */
  public static final int MIN_LINE_BYTES = 21;
  /** The smallest reply budget accepted: one element, its CRLF and the longest integer line. */
  public static final int MIN_REPLY_BYTES = 128;

  private static final int STATE_READY = 0;
  private static final int STATE_PENDING = 1;
  private static final int STATE_BROKEN = 2;


  private final Transport transport;
  /**
   * The transport as {@link LineParsing} if it offers that (the library's transports do), so that
   * reply lines are parsed where they arrived; null otherwise, and lines are read with
   * {@code readLineStrict}, as the transport contract alone allows.
   */
  private final LineParsing lines;
  private Command command;
  private final int maxLineBytes;
  private final int maxBulkBytes;
  private final int maxArrayLength;
  private final int maxReplyBytes;
  /** What the reply being read may still cost; see the class javadoc. */
  private long replyBudget;
  private final byte[] scratch = new byte[2];
  /** Parses each reply line where the transport received it. */
  private final ReplyLine replyLine = new ReplyLine();
  private int state = STATE_READY;
  private int pending;
  private String brokenBy;

  /**
   * A client with the default limits.
   *
   * @param transport the connection, which stays the caller's to close
   */
  public RedisClient(Transport transport) {
    this(transport, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_BULK_BYTES, DEFAULT_MAX_ARRAY_LENGTH,
        DEFAULT_MAX_REPLY_BYTES);
  }

  /**
   * A client with the given limits on reply lines, bulk strings and arrays.
   *
   * @param transport the connection, which stays the caller's to close
   * @param maxLineBytes the longest status, error or length line, in bytes
   * @param maxBulkBytes the largest bulk string, in bytes
   * @param maxArrayLength the most elements in one array
   * @throws IllegalArgumentException if a limit is below its least accepted value (class javadoc)
   */
  public RedisClient(Transport transport, int maxLineBytes, int maxBulkBytes, int maxArrayLength) {
    this(transport, maxLineBytes, maxBulkBytes, maxArrayLength, DEFAULT_MAX_REPLY_BYTES);
  }

  /**
   * A client with the given limits on reply lines, bulk strings, arrays and whole replies.
   *
   * @param transport the connection, which stays the caller's to close
   * @param maxLineBytes the longest status, error or length line, in bytes
   * @param maxBulkBytes the largest bulk string, in bytes
   * @param maxArrayLength the most elements in one array
   * @param maxReplyBytes the budget of one whole reply: its bytes plus {@value #ELEMENT_COST} per element
   * @throws IllegalArgumentException if a limit is below its least accepted value (class javadoc)
   */
  public RedisClient(Transport transport, int maxLineBytes, int maxBulkBytes, int maxArrayLength,
      int maxReplyBytes) {
    if (transport == null) {
      throw new IllegalArgumentException("transport == null");
    }
    if (maxLineBytes < MIN_LINE_BYTES) {
      throw new IllegalArgumentException("maxLineBytes < " + MIN_LINE_BYTES
          + " (an integer reply such as :-9223372036854775808 needs it): " + maxLineBytes);
    }
    if (maxReplyBytes < MIN_REPLY_BYTES) {
      throw new IllegalArgumentException("maxReplyBytes < " + MIN_REPLY_BYTES + ": " + maxReplyBytes);
    }
    if (maxBulkBytes < 0) {
      throw new IllegalArgumentException("maxBulkBytes < 0: " + maxBulkBytes);
    }
    if (maxArrayLength < 0) {
      throw new IllegalArgumentException("maxArrayLength < 0: " + maxArrayLength);
    }
    this.transport = transport;
    this.lines = transport instanceof LineParsing ? (LineParsing) transport : null;
    this.maxLineBytes = maxLineBytes;
    this.maxBulkBytes = maxBulkBytes;
    this.maxArrayLength = maxArrayLength;
    this.maxReplyBytes = maxReplyBytes;
  }

  /**
   * Sends one command and returns its reply, typed as the class javadoc says.
   *
   * @throws RedisErrorException if Redis answers with an error
   * @throws ProtocolViolationException if the reply is malformed or over a limit
   * @throws IllegalStateException if replies to {@link #send} are still unread, or the client
   *     is broken
   * @param args the command and its arguments, such as {@code "SET", "k", "v"}
   * @return the reply
   */
  public Object call(String... args) throws IOException {
    checkNothingPending("call");
    // send(args)'s steps, and readValue(0, false) for the reply: the client's methods that a continuation
    // enters on a call are this one and readValue, and a read that suspends captures only those.
    Command command = encode(args);
    transport.write(command.bytes, 0, command.size);
    sent();
    transport.flush();
    return thrownIfError(readValue(0, false));
  }

  /**
   * As {@link #call(String...)}, with binary arguments.
   *
   * @param args the command and its arguments
   * @return the reply
   * @throws IOException as {@link #call(String...)}
   */
  public Object call(byte[]... args) throws IOException {
    checkNothingPending("call");
    send(args);
    transport.flush();
    return thrownIfError(readValue(0, false));
  }

  /**
   * Sends a command that answers with an integer ({@code INCR}, {@code DEL}) and returns it.
   *
   * @throws ProtocolViolationException if the reply is of another type
   * @param args the command and its arguments
   * @return the integer reply
   */
  public long callLong(String... args) throws IOException {
    // call(args)'s steps, not a call to it: one frame fewer (see call).
    checkNothingPending("call");
    Command command = encode(args);
    transport.write(command.bytes, 0, command.size);
    sent();
    transport.flush();
    Object reply = thrownIfError(readValue(0, true));
    if (reply == INTEGER) {
      return replyLine.integer;
    }
    if (reply instanceof Long) {
      return (Long) reply;
    }
    throw unexpectedType("an integer", args, reply);
  }

  /**
   * Sends a command that answers with a string ({@code GET}, {@code SET}, {@code PING}) and
   * returns it: a simple string as it is, a bulk string decoded as UTF-8, the null bulk string as
   * {@code null}.
   *
   * @throws ProtocolViolationException if the reply is an integer or an array
   * @param args the command and its arguments
   * @return the string reply, or null
   */
  public String callString(String... args) throws IOException {
    // As in callLong: call(args)'s steps, one frame fewer.
    checkNothingPending("call");
    Command command = encode(args);
    transport.write(command.bytes, 0, command.size);
    sent();
    transport.flush();
    Object reply = thrownIfError(readValue(0, false));
    if (reply == null || reply instanceof String) {
      return (String) reply;
    }
    if (reply instanceof byte[]) {
      return new String((byte[]) reply, StandardCharsets.UTF_8);
    }
    throw unexpectedType("a string", args, reply);
  }

  /**
   * Buffers one command without flushing it or reading its reply: the first half of a
   * pipeline. Read the replies, in order, with {@link #readReply()} after {@link #flush()}.
   *
   * @param args the command and its arguments
   * @throws IOException if the transport fails
   */
  public void send(String... args) throws IOException {
    // The whole command in one write: one call into the transport instead of four per argument.
    // call(String...), callLong and callString do these steps themselves (one frame fewer): a change
    // here is a change there too.
    Command command = encode(args);
    transport.write(command.bytes, 0, command.size);
    sent();
  }

  /**
   * Checks {@code args} and the client, and encodes the command into this client's
   * {@link Command}, for the caller to write and then count as {@link #sent()}. Plain code that
   * never waits: {@link #call(String...)}, {@link #callLong} and {@link #callString} write the
   * command themselves rather than through {@link #send(String...)}, one method fewer for a
   * continuation to enter on every call.
   */
  private Command encode(String[] args) {
    checkArgs(args == null ? 0 : args.length);
    for (String arg : args) {
      if (arg == null) {
        throw new IllegalArgumentException("null argument in " + commandName(args));
      }
    }
    checkUsable();
    Command command = command();
    command.header('*', args.length);
    for (String arg : args) {
      command.bulk(arg);
    }
    return command;
  }

  /** One more command written whose reply is pending. */
  private void sent() {
    pending++;
    state = STATE_PENDING;
  }

  /**
   * As {@link #send(String...)}, with binary arguments.
   *
   * @param args the command and its arguments
   * @throws IOException if the transport fails
   */
  public void send(byte[]... args) throws IOException {
    checkArgs(args == null ? 0 : args.length);
    for (byte[] arg : args) {
      if (arg == null) {
        throw new IllegalArgumentException("null argument");
      }
    }
    checkUsable();
    Command command = command();
    command.header('*', args.length);
    for (byte[] arg : args) {
      command.header('$', arg.length);
      command.put(arg, 0, arg.length);
      command.crlf();
    }
    transport.write(command.bytes, 0, command.size);
    sent();
  }

  /**
   * Sends every buffered command.
   *
   * @throws IOException if the transport fails
   */
  public void flush() throws IOException {
    checkUsable();
    transport.flush();
  }

  /**
   * Commands sent whose replies have not been read yet.
   *
   * @return the number of replies still to read
   */
  public int pendingReplies() {
    return pending;
  }

  /**
   * Reads the reply to the oldest command sent and not yet answered.
   *
   * @throws RedisErrorException if that reply is an error
   * @throws IllegalStateException if no reply is pending
   * @return the reply, typed as the class javadoc says
   */
  public Object readReply() throws IOException {
    return thrownIfError(readValue(0, false));
  }

  /**
   * The reply, or a fresh exception for an error reply, so the stack trace shows the call rather
   * than the parser's. Applied by each caller to what it read, not a frame around the read: a
   * continuation that suspends in the read captures one frame fewer.
   */
  private static Object thrownIfError(Object reply) throws RedisErrorException {
    if (reply instanceof RedisErrorException) {
      throw new RedisErrorException(((RedisErrorException) reply).getMessage());
    }
    return reply;
  }

  /**
   * Sends every command in {@code commands} in one flush, then reads as many replies. An error
   * reply is returned in its place as a {@link RedisErrorException}, not thrown.
   *
   * @param commands the commands, each the command and its arguments
   * @return the replies, in command order
   * @throws IOException if the transport fails or a reply is malformed
   */
  public List<Object> pipeline(List<String[]> commands) throws IOException {
    checkNothingPending("pipeline");
    for (String[] command : commands) {
      send(command);
    }
    transport.flush();
    List<Object> replies = new ArrayList<>(commands.size());
    for (int i = 0; i < commands.size(); i++) {
      replies.add(readValue(0, false));
    }
    return replies;
  }

  /**
   * Reads one value; at {@code depth} 0, the reply to the oldest command pending, with the
   * client's bookkeeping around it (the reply's budget, the pending count, the state). One method
   * for both, not a frame for the bookkeeping around a frame for the value: a continuation that
   * suspends in the read captures one frame fewer.
   */
  private Object readValue(int depth, boolean unboxed) throws IOException {
    if (depth == 0) {
      checkUsable();
      if (pending == 0) {
        throw new IllegalStateException("no reply pending: send a command first");
      }
      replyBudget = maxReplyBytes == Integer.MAX_VALUE ? Long.MAX_VALUE : maxReplyBytes;
    }
    Object reply;
    try {
      // The element's line, charged to the reply's budget with its CRLF and the element it starts;
      // read here, not in a helper of its own: one frame fewer to capture when the read suspends.
      long left = replyBudget - ELEMENT_COST - 2;
      if (left < 0) {
        throw overReplyBudget("before the next element");
      }
      // Parsed where it arrived if the transport offers that (ReplyLine: an integer line to
      // replyLine.integer, any other to its String); otherwise the line's String, read as on any
      // transport. Both calls here, in this frame: a helper would be one frame more on the suspend path.
      Object parsed;
      if (left >= maxLineBytes) {
        parsed = lines != null ? lines.parseLine(maxLineBytes, replyLine) : transport.readLineStrict(maxLineBytes);
      } else {
        try {
          parsed = lines != null ? lines.parseLine((int) left, replyLine) : transport.readLineStrict((int) left);
        } catch (LineTooLongException e) {
          // The line may well be within maxLineBytes: the limit passed is the reply's.
          throw new ProtocolViolationException("reply over the limit of " + maxReplyBytes
              + " bytes (maxReplyBytes: its bytes plus " + ELEMENT_COST + " per element), in a line starting "
              + e.getMessage().substring(e.getMessage().indexOf(':') + 2), e);
        }
      }
      if (parsed == INTEGER) {
        // An integer line is ASCII: its bytes are its chars, as the String's length counted them.
        replyBudget = left - replyLine.length;
        reply = unboxed ? INTEGER : Long.valueOf(replyLine.integer);
      } else {
        String line = (String) parsed;
        replyBudget = left - line.length();
        if (line.isEmpty()) {
          throw new ProtocolViolationException("empty reply line");
        }
        switch (line.charAt(0)) {
          case '+':
            // Redis's most common status, returned without a second String.
            reply = line.equals("+OK") ? "OK" : line.substring(1);
            break;
          case '-':
            reply = new InPlaceError(line.substring(1));
            break;
          case ':':
            // Read with readLineStrict: the transport does not parse lines in place.
            reply = Wire.parseLong(line, 1, line.length(), "integer reply", line);
            break;
          case '$':
            reply = readBulk(line);
            break;
          case '*':
            reply = readArray(line, depth);
            break;
          default:
            throw new ProtocolViolationException("unexpected reply type " + ProtocolViolationException.quote(line.substring(0, 1))
                + ": " + ProtocolViolationException.quote(line));
        }
      }
    } catch (IOException | RuntimeException e) {
      if (depth == 0) {
        state = STATE_BROKEN;
        brokenBy = e.toString();
      }
      throw e;
    }
    if (depth == 0) {
      pending--;
      state = pending == 0 ? STATE_READY : STATE_PENDING;
    }
    return reply;
  }

  private ProtocolViolationException overReplyBudget(String where) {
    return new ProtocolViolationException("reply over the limit of " + maxReplyBytes
        + " bytes (maxReplyBytes: its bytes plus " + ELEMENT_COST + " per element), " + where);
  }

  private byte[] readBulk(String line) throws IOException {
    long length = Wire.parseLength(line, 1, line.length(), "bulk length", line);
    if (length == -1) {
      return null;
    }
    if (length < 0) {
      throw new ProtocolViolationException("negative bulk length: " + ProtocolViolationException.quote(line));
    }
    if (length > maxBulkBytes) {
      throw new ProtocolViolationException("bulk length over the limit of " + maxBulkBytes + " bytes: "
          + ProtocolViolationException.quote(line));
    }
    if (length + 2 > replyBudget) {
      throw overReplyBudget("at bulk length " + ProtocolViolationException.quote(line));
    }
    replyBudget -= length + 2;
    // The body and its CRLF read here, with Wire's messages (endOfStream, notCrlf): the reads come
    // straight from this frame, no helper frame between it and the transport.
    GrowingBytes bulk = new GrowingBytes();
    long done = 0;
    while (done < length) {
      int room = bulk.room(length - done);
      int n = transport.read(bulk.segment(), bulk.position(), room);
      if (n < 0) {
        throw Wire.endOfStream("bulk string of " + length + " bytes", done, length, bulk.quoteTail());
      }
      bulk.advance(n);
      done += n;
    }
    byte[] crlf = scratch;
    int got = 0;
    while (got < 2) {
      int n = transport.read(crlf, got, 2 - got);
      if (n < 0) {
        break;
      }
      got += n;
    }
    if (got < 2 || crlf[0] != '\r' || crlf[1] != '\n') {
      throw Wire.notCrlf("bulk string of " + length + " bytes", crlf, got);
    }
    return bulk.toByteArray();
  }

  private List<Object> readArray(String line, int depth) throws IOException {
    long length = Wire.parseLength(line, 1, line.length(), "array length", line);
    if (length == -1) {
      return null;
    }
    if (length < 0) {
      throw new ProtocolViolationException("negative array length: " + ProtocolViolationException.quote(line));
    }
    if (length > maxArrayLength) {
      throw new ProtocolViolationException("array length over the limit of " + maxArrayLength + ": "
          + ProtocolViolationException.quote(line));
    }
    if (depth >= MAX_NESTING) {
      throw new ProtocolViolationException("arrays nested deeper than " + MAX_NESTING + ": "
          + ProtocolViolationException.quote(line));
    }
    if (length * (ELEMENT_COST + 3) > replyBudget) {
      // Each element costs at least ELEMENT_COST and its shortest line, "+" and CRLF.
      throw overReplyBudget("at array length " + ProtocolViolationException.quote(line));
    }
    // Grow as elements arrive rather than trusting the announced length with memory.
    List<Object> array = new ArrayList<>((int) Math.min(length, 16));
    for (long i = 0; i < length; i++) {
      array.add(readValue(depth + 1, false));
    }
    return array;
  }

  /** This client's command being encoded; reused, since the transport copies what it writes. */
  private Command command() {
    Command c = command;
    if (c == null) {
      c = new Command();
      command = c;
    }
    c.size = 0;
    return c;
  }

  /** A RESP command encoded into one growing byte array. */
  private static final class Command {
    byte[] bytes = new byte[64];
    int size;

    private void ensure(int more) {
      if (bytes.length - size < more) {
        bytes = java.util.Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
      }
    }

    void put(byte[] src, int offset, int length) {
      ensure(length);
      System.arraycopy(src, offset, bytes, size, length);
      size += length;
    }

    void crlf() {
      ensure(2);
      bytes[size++] = '\r';
      bytes[size++] = '\n';
    }

    /** {@code type}, the decimal {@code n}, CRLF: an array's or a bulk string's header. */
    void header(char type, int n) {
      ensure(13);
      bytes[size++] = (byte) type;
      int digits = 1;
      for (int v = n; v >= 10; v /= 10) {
        digits++;
      }
      for (int i = size + digits - 1, v = n; i >= size; i--, v /= 10) {
        bytes[i] = (byte) ('0' + v % 10);
      }
      size += digits;
      crlf();
    }

    /** A bulk string: its UTF-8 bytes, copied without an intermediate array when it is ASCII. */
    void bulk(String arg) {
      int length = arg.length();
      for (int i = 0; i < length; i++) {
        if (arg.charAt(i) >= 0x80) {
          byte[] utf8 = arg.getBytes(StandardCharsets.UTF_8);
          header('$', utf8.length);
          put(utf8, 0, utf8.length);
          crlf();
          return;
        }
      }
      header('$', length);
      ensure(length);
      for (int i = 0; i < length; i++) {
        bytes[size++] = (byte) arg.charAt(i);
      }
      crlf();
    }
  }

  private void checkArgs(int count) {
    if (count == 0) {
      throw new IllegalArgumentException("a command needs at least one argument");
    }
  }

  private void checkUsable() {
    if (state == STATE_BROKEN) {
      throw new IllegalStateException("client unusable after an earlier failure: " + brokenBy);
    }
  }

  private void checkNothingPending(String operation) {
    checkUsable();
    if (pending != 0) {
      throw new IllegalStateException(operation + " with " + pending + " replies pending: read them first");
    }
  }

  private static ProtocolViolationException unexpectedType(String expected, String[] args, Object reply) {
    return new ProtocolViolationException("expected " + expected + " reply to " + commandName(args)
        + " but got " + describe(reply));
  }

  private static String commandName(String[] args) {
    return args.length == 0 || args[0] == null ? "?" : args[0];
  }

  /** Names a reply's type and quotes its value, for messages. */
  static String describe(Object reply) {
    if (reply == null) {
      return "null";
    }
    if (reply instanceof String) {
      return "simple string " + ProtocolViolationException.quote((String) reply);
    }
    if (reply instanceof Long) {
      return "integer " + reply;
    }
    if (reply instanceof byte[]) {
      return "bulk string " + ProtocolViolationException.quote((byte[]) reply);
    }
    if (reply instanceof List) {
      return "array of " + ((List<?>) reply).size();
    }
    return String.valueOf(reply);
  }

  /**
   * An error element returned in place: a reply like any other, so it skips the stack trace
   * that would cost a hundred times its bytes.
   */
  private static final class InPlaceError extends RedisErrorException {
    private static final long serialVersionUID = 1L;

    InPlaceError(String serverMessage) {
      super(serverMessage);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }

  /** What {@link ReplyLine} answers for an integer line, and readValue for it when asked not to box it. */
  private static final Object INTEGER = new Object();

  /**
   * Parses a reply line where the transport received it: an integer line ({@code :}) into
   * {@link #integer} and {@link #length}, answering {@link #INTEGER}, with no String or Long; any
   * other line into its String, as {@code readLineStrict} would have made it.
   */
  private static final class ReplyLine implements LineParser<Object> {
    long integer;
    int length;

    @Override
    public Object parse(byte[] buf, int offset, int length) throws IOException {
      if (length > 0 && buf[offset] == ':') {
        integer = Wire.parseLong(buf, offset, offset + 1, offset + length, "integer reply");
        this.length = length;
        return INTEGER;
      }
      return new String(buf, offset, length, StandardCharsets.UTF_8);
    }
  }
}
