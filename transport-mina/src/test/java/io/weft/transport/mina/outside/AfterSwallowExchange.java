package io.weft.transport.mina.outside;

import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A frame that is never rewritten (its package is not instrumented, and the task finds it by
 * name, so the load-time analysis never sees it): its read suspends, it swallows that suspend,
 * takes the engine's placeholder for the line and calls the transport again. That call must be
 * refused before it does anything. Defined by the application's loader, so the test reads what it
 * did.
 */
public final class AfterSwallowExchange implements LineExchange {
  /** What this frame got back from each transport call, in order. */
  public static final List<String> RETURNED = new CopyOnWriteArrayList<>();
  /** The call made after the swallowed suspend: one of {@link #CALLS}. */
  public static volatile String next = "writeLine";
  /**
   * The transport operations whose entry check this can show over TCP: every write, {@code flush},
   * {@code startTls}, and the reads that return at once. The four {@code readLine} overloads check
   * on entry too, but here their line is never buffered yet (the reply is appended by the same I/O
   * thread, later), so they would reach the wait, whose own check ({@code Fiber.arm}) refuses them
   * there whether the entry check is made or not.
   */
  public static final List<String> CALLS = List.of("writeLine", "write(byte[])", "write(byte[],int,int)",
      "write(String)", "write(String,Charset)", "flush", "read(0 bytes)", "readFully(0 bytes)", "readBytes(0)",
      "startTls");

  public AfterSwallowExchange() {}

  @Override
  public String exchange(Transport transport) throws IOException {
    transport.writeLine("one");
    transport.flush();
    String reply = transport.readLine(64);
    RETURNED.add("read " + reply);
    String call = next;
    call(transport, call);
    RETURNED.add("did " + call);
    return reply;
  }

  private static void call(Transport transport, String call) throws IOException {
    byte[] two = "two\r\n".getBytes(StandardCharsets.UTF_8);
    switch (call) {
      case "writeLine": transport.writeLine("two"); break;
      case "write(byte[])": transport.write(two); break;
      case "write(byte[],int,int)": transport.write(two, 0, two.length); break;
      case "write(String)": transport.write("two\r\n"); break;
      case "write(String,Charset)": transport.write("two\r\n", StandardCharsets.UTF_8); break;
      case "flush": transport.flush(); break;
      case "read(0 bytes)": RETURNED.add("read " + transport.read(new byte[1], 0, 0) + " bytes"); break;
      case "readFully(0 bytes)": transport.readFully(new byte[1], 0, 0); break;
      case "readBytes(0)": transport.readBytes(0); break;
      case "startTls": transport.startTls(TlsSettings.defaults()); break;
      default: throw new IllegalArgumentException(call);
    }
  }
}
