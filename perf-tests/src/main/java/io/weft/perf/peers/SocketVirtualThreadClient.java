package io.weft.perf.peers;

import io.weft.transport.spi.VirtualThreads;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ProtocolException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The plain virtual-thread client, written as a user of virtual threads would write it without
 * Weft: one virtual thread per session, a {@link java.net.Socket} with a
 * {@link BufferedInputStream} and {@link BufferedOutputStream}, RESP written and read by hand.
 * The N first sessions start at once; each session's thread starts the next session's as it
 * ends. Needs JDK 21+ (started by reflection, so it builds for release 17).
 */
final class SocketVirtualThreadClient implements PeerClient {
  private static final int MAX_LINE = 64;

  @Override
  public String label() {
    return "VT java.net.Socket";
  }

  @Override
  public String unavailableReason(PeerWorkload workload) {
    return VirtualThreads.unavailableReason();
  }

  @Override
  public boolean inProcess() {
    return true;
  }

  @Override
  public ClientRun run(PeerWorkload workload) throws InterruptedException {
    RoundTrips roundTrips = new RoundTrips();
    SessionLauncher sessions = new SessionLauncher(workload.totalSessions);
    long start = System.nanoTime();
    for (int i = 0; i < workload.concurrency; i++) {
      startNext(workload, sessions, roundTrips);
    }
    sessions.await(workload.timeoutNanos, TimeUnit.NANOSECONDS);
    long wall = System.nanoTime() - start;
    return ClientRun.inProcess(sessions.failed(), sessions.failureSummary(), wall, roundTrips.interval());
  }

  private static void startNext(PeerWorkload workload, SessionLauncher sessions, RoundTrips roundTrips) {
    int session = sessions.nextSession();
    if (session < 0) {
      return;
    }
    VirtualThreads.start(() -> {
      Throwable failure = null;
      try {
        session(workload, session, roundTrips);
      } catch (IOException | RuntimeException e) {
        failure = e;
      }
      sessions.ended(session, failure);
      startNext(workload, sessions, roundTrips);
    });
  }

  private static void session(PeerWorkload workload, int session, RoundTrips roundTrips) throws IOException {
    byte[] key = ("peers:" + (session % workload.keys)).getBytes(StandardCharsets.US_ASCII);
    byte[] command = ("*2\r\n$4\r\nINCR\r\n$" + key.length + "\r\n" + new String(key, StandardCharsets.US_ASCII)
        + "\r\n").getBytes(StandardCharsets.US_ASCII);
    int timeoutMillis = (int) Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(workload.timeoutNanos));
    try (Socket socket = new Socket()) {
      socket.setTcpNoDelay(true);
      socket.connect(workload.redis, timeoutMillis);
      socket.setSoTimeout(timeoutMillis);
      InputStream in = new BufferedInputStream(socket.getInputStream());
      OutputStream out = new BufferedOutputStream(socket.getOutputStream());
      for (int i = 0; i < workload.requestsPerSession; i++) {
        long start = System.nanoTime();
        out.write(command);
        out.flush();
        readInteger(in);
        roundTrips.accept(start);
      }
    }
  }

  /** Reads one RESP integer reply ({@code :<digits>\r\n}); an error reply is thrown. */
  private static long readInteger(InputStream in) throws IOException {
    int type = in.read();
    if (type == ':') {
      long value = 0;
      boolean negative = false;
      int length = 0;
      for (int c = in.read(); c != '\r'; c = in.read()) {
        if (c < 0) {
          throw new EOFException("end of stream in an integer reply");
        }
        if (c == '-' && length == 0) {
          negative = true;
        } else if (c >= '0' && c <= '9' && length < 19) {
          value = value * 10 + (c - '0');
        } else {
          throw new ProtocolException("bad integer reply byte " + c);
        }
        length++;
      }
      if (in.read() != '\n') {
        throw new ProtocolException("integer reply not ended by CRLF");
      }
      return negative ? -value : value;
    }
    if (type < 0) {
      throw new EOFException("end of stream before a reply");
    }
    StringBuilder line = new StringBuilder().append((char) type);
    for (int c = in.read(); c >= 0 && c != '\r' && line.length() < MAX_LINE; c = in.read()) {
      line.append((char) c);
    }
    throw new ProtocolException("expected an integer reply but got " + line);
  }

  @Override
  public void close() {
    // Nothing kept between runs: every session closed its socket.
  }
}
