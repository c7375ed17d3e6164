package io.weft.simulation.peers;

import io.weft.simulation.SimulatedNetwork;
import io.weft.simulation.SimulatedTime;
import io.weft.testsupport.FaultyPeer;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The simulated twin of {@link FaultyPeer}: a server session per connection that does to its
 * client what the named {@link FaultyPeer.Fault} does over TCP, with the same bytes and timings.
 */
public final class FaultPeer implements SessionTask<String> {
  private static final int REQUEST_LIMIT = 64 * 1024;
  private static final byte[] GARBAGE = {(byte) 0xc3, (byte) 0x28, (byte) 0xff, (byte) 0xfe, '\r', '\n'};

  private final String fault;
  private final InetSocketAddress address;
  private final int killAfter;
  private final int size;
  private int connections;

  /**
   * @param fault a {@link FaultyPeer.Fault} name
   * @param host the server's host, for KILLED_MID_RUN
   * @param port the server's port, for KILLED_MID_RUN
   * @param killAfter KILLED_MID_RUN: connections served before the one that kills the server
   * @param size BIG_REPLY: the reply's bytes; LONG_LINE: the line's
   */
  public FaultPeer(String fault, String host, Integer port, Integer killAfter, Integer size) {
    this.fault = fault;
    this.address = InetSocketAddress.createUnresolved(host, port);
    this.killAfter = killAfter;
    this.size = size;
  }

  @Override
  public String run(Transport t, int session) throws Exception {
    int index = connections++;
    if (fault.equals("NO_READ")) {
      SimulatedTime.sleep(60_000);
      return "never read";
    }
    String request = t.readLine(REQUEST_LIMIT);
    if (request == null) {
      return "no request";
    }
    switch (fault) {
      case "ECHO":
        for (String line = request; line != null; line = t.readLine(REQUEST_LIMIT)) {
          t.writeLine(line);
          t.flush();
        }
        return "echoed";
      case "ENDLESS_LINE":
        byte[] chunk = new byte[64 * 1024];
        Arrays.fill(chunk, (byte) 'x');
        for (int i = 0; i < 1024; i++) {
          t.write(chunk);
          t.flush();
        }
        return "endless line not refused";
      case "STALL":
        return drain(t);
      case "RESET_MID_LINE":
        t.write(FaultyPeer.RESET_PREFIX);
        t.flush();
        SimulatedNetwork.reset();
        return "reset";
      case "GARBAGE":
        t.write(GARBAGE);
        t.flush();
        return drain(t);
      case "DRIP":
        for (int i = 0; i < FaultyPeer.DRIP_LINE_BYTES; i++) {
          SimulatedTime.sleep(FaultyPeer.DRIP_INTERVAL_MILLIS);
          t.write(new byte[] {'.'});
          t.flush();
        }
        t.write("\n");
        t.flush();
        return "dripped";
      case "HALF_CLOSE":
        t.writeLine(request);
        t.flush();
        SimulatedNetwork.shutdownOutput();
        return drain(t);
      case "KILLED_MID_RUN":
        if (index < killAfter) {
          t.writeLine(request);
          t.flush();
          return drain(t);
        }
        SimulatedNetwork.resetAll(address);
        SimulatedNetwork.closeListener(address);
        return "killed";
      case "BIG_REPLY":
        byte[] body = new byte[size];
        for (int i = 0; i < size; i++) {
          body[i] = FaultyPeer.replyByte(i);
        }
        t.write("$" + size + "\r\n");
        t.write(body);
        t.flush();
        return drain(t);
      case "LONG_LINE":
        byte[] line = new byte[size + 2];
        Arrays.fill(line, (byte) 'a');
        line[size] = '\r';
        line[size + 1] = '\n';
        t.write(line);
        t.flush();
        return drain(t);
      default:
        throw new IllegalArgumentException("no such fault: " + fault);
    }
  }

  /** Reads until the client ends the stream. */
  private static String drain(Transport t) throws IOException {
    byte[] sink = new byte[8192];
    while (t.read(sink, 0, sink.length) >= 0) {
      // what the client sends after its request is not looked at
    }
    return new String("drained".getBytes(StandardCharsets.US_ASCII), StandardCharsets.US_ASCII);
  }
}
