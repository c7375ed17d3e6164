package io.weft.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A misbehaving server on a real loopback socket: it accepts one connection and plays a
 * {@link Script} of sends, expectations, stalls and closes, in the spirit of okhttp's
 * MockWebServer {@code SocketPolicy}. Protocol tests use it for the inputs no real server sends.
 *
 * <p>Lifecycle: {@link #start(Script, Delivery)} binds and starts one daemon thread; the client
 * connects to {@link #address()}; {@link #awaitScript(Duration)} waits for the script to end
 * and rethrows anything that went wrong on the server side (a client line that did not match
 * an expectation); {@link #close()} stops it, whatever state it is in.
 */
public final class ScriptedServer implements Closeable {

  /** How {@link Script#send} steps reach the client. */
  public enum Delivery {
    /** Each send step in one write. */
    WHOLE,
    /** Each byte in its own write, with a short pause between, so the reader sees it alone. */
    ONE_BYTE_AT_A_TIME
  }

  private static final long ONE_BYTE_PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
  private static final int LINE_LIMIT = 1 << 20;

  private final ServerSocket serverSocket;
  private final Script script;
  private final Delivery delivery;
  private final Thread thread;
  private final CountDownLatch done = new CountDownLatch(1);
  private final List<String> received = Collections.synchronizedList(new ArrayList<>());
  private volatile Throwable failure;
  private volatile Socket socket;

  private ScriptedServer(Script script, Delivery delivery) throws IOException {
    this.script = script;
    this.delivery = delivery;
    this.serverSocket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.thread = new Thread(this::play, "scripted-server-" + serverSocket.getLocalPort());
    this.thread.setDaemon(true);
  }

  /** Binds a loopback port and starts playing {@code script} to the first client that connects. */
  public static ScriptedServer start(Script script, Delivery delivery) throws IOException {
    ScriptedServer server = new ScriptedServer(script, delivery);
    server.thread.start();
    return server;
  }

  /** Starts a new, empty script. */
  public static Script script() {
    return new Script();
  }

  /** Where clients connect. */
  public InetSocketAddress address() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), serverSocket.getLocalPort());
  }

  /** Lines the client sent that {@code expectLine}/{@code readLine} steps consumed, in order. */
  public List<String> receivedLines() {
    synchronized (received) {
      return List.copyOf(received);
    }
  }

  /**
   * Waits for the script to finish and rethrows a server-side failure as an
   * {@link AssertionError}.
   */
  public void awaitScript(Duration timeout) throws InterruptedException {
    if (!done.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("script did not finish within " + timeout);
    }
    Throwable t = failure;
    if (t != null) {
      throw new AssertionError("scripted server failed: " + t, t);
    }
  }

  @Override
  public void close() {
    closeQuietly(serverSocket);
    Socket s = socket;
    if (s != null) {
      closeQuietly(s);
    }
    thread.interrupt();
    try {
      thread.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void play() {
    try (Socket s = serverSocket.accept()) {
      socket = s;
      s.setTcpNoDelay(true);
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      for (Step step : script.steps) {
        if (step.run(this, s, in, out)) {
          break;
        }
      }
      if (!s.isClosed()) {
        // Let the client read what was sent before the implicit close ends the connection.
        s.shutdownOutput();
        drain(in);
      }
    } catch (Throwable t) {
      if (!serverSocket.isClosed()) {
        failure = t;
      }
    } finally {
      closeQuietly(serverSocket);
      done.countDown();
    }
  }

  private void send(OutputStream out, byte[] bytes) throws IOException {
    if (delivery == Delivery.WHOLE) {
      out.write(bytes);
      out.flush();
      return;
    }
    for (byte b : bytes) {
      out.write(b);
      out.flush();
      LockSupport.parkNanos(ONE_BYTE_PAUSE_NANOS);
    }
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (;;) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("client closed; partial line: " + line.toString(StandardCharsets.UTF_8));
      }
      if (b == '\n') {
        byte[] bytes = line.toByteArray();
        int n = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return new String(bytes, 0, n, StandardCharsets.UTF_8);
      }
      if (line.size() >= LINE_LIMIT) {
        throw new IOException("client line over " + LINE_LIMIT + " bytes");
      }
      line.write(b);
    }
  }

  private static void drain(InputStream in) {
    byte[] sink = new byte[4096];
    try {
      while (in.read(sink) >= 0) {
        // Until the client closes; the socket's close() from the test ends this too.
      }
    } catch (IOException ignored) {
      // The client reset or the test closed us: either way the script is over.
    }
  }

  private static void closeQuietly(Closeable c) {
    try {
      c.close();
    } catch (IOException ignored) {
      // Closing anyway.
    }
  }

  /** One step; returns true when the connection is finished. */
  private interface Step {
    boolean run(ScriptedServer server, Socket socket, InputStream in, OutputStream out)
        throws IOException, InterruptedException;
  }

  /**
   * What the server does, in order. Steps after a {@link #close()} or {@link #reset()} are
   * never played. A script that runs out closes the connection after the client closes (or
   * the server is closed).
   */
  public static final class Script {
    private final List<Step> steps = new ArrayList<>();

    private Script() {}

    /** Sends {@code text} as UTF-8, delivered as the server's {@link Delivery} says. */
    public Script send(String text) {
      return send(text.getBytes(StandardCharsets.UTF_8));
    }

    /** Sends {@code bytes}, delivered as the server's {@link Delivery} says. */
    public Script send(byte[] bytes) {
      byte[] copy = bytes.clone();
      steps.add((server, socket, in, out) -> {
        server.send(out, copy);
        return false;
      });
      return this;
    }

    /** Reads one line from the client and fails the script unless it equals {@code line}. */
    public Script expectLine(String line) {
      steps.add((server, socket, in, out) -> {
        String got = ScriptedServer.readLine(in);
        server.received.add(got);
        if (!got.equals(line)) {
          throw new IOException("expected line \"" + line + "\" but client sent \"" + got + "\"");
        }
        return false;
      });
      return this;
    }

    /** Reads one line from the client, whatever it is; see {@link #receivedLines()}. */
    public Script readLine() {
      steps.add((server, socket, in, out) -> {
        server.received.add(ScriptedServer.readLine(in));
        return false;
      });
      return this;
    }

    /** Reads {@code count} lines from the client, whatever they are. */
    public Script readLines(int count) {
      for (int i = 0; i < count; i++) {
        readLine();
      }
      return this;
    }

    /** Reads exactly {@code n} bytes from the client and discards them. */
    public Script skipBytes(int n) {
      steps.add((server, socket, in, out) -> {
        byte[] got = in.readNBytes(n);
        if (got.length < n) {
          throw new EOFException("client closed after " + got.length + " of " + n + " bytes");
        }
        return false;
      });
      return this;
    }

    /** Does nothing for {@code duration}, holding the connection open. */
    public Script stall(Duration duration) {
      steps.add((server, socket, in, out) -> {
        Thread.sleep(duration.toMillis());
        return false;
      });
      return this;
    }

    /** Closes the connection cleanly: the client sees end of stream. */
    public Script close() {
      steps.add((server, socket, in, out) -> {
        socket.shutdownOutput();
        drainBriefly(socket, in);
        socket.close();
        return true;
      });
      return this;
    }

    /** Aborts the connection with a TCP reset. */
    public Script reset() {
      steps.add((server, socket, in, out) -> {
        socket.setSoLinger(true, 0);
        socket.close();
        return true;
      });
      return this;
    }

    private static void drainBriefly(Socket socket, InputStream in) {
      // Reading what the client still sends, for a moment, keeps a late client write from
      // turning our close into a reset that could destroy data the client has not read yet.
      try {
        socket.setSoTimeout(2000);
        byte[] sink = new byte[4096];
        while (in.read(sink) >= 0) {
          // until the client closes or the timeout passes
        }
      } catch (SocketException ignored) {
        // reset by client
      } catch (IOException ignored) {
        // timeout: the client is keeping its end open; close ours now
      }
    }
  }
}
