package io.weft.perf.internal;

import io.weft.testsupport.EchoServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * test-support's {@link EchoServer} over TCP in a child JVM, driven over the child's stdin/stdout.
 * Loopback TCP with both ends in one JVM costs two file descriptors per session; with the
 * server in its own process each side has the whole open-file limit, so twice as many sessions
 * fit, and the client JVM's heap holds only client state.
 *
 * <p>Protocol, one line each way: the child prints {@code ADDRESS host:port} per bound address
 * then {@code READY}; it answers {@code lines} with {@code LINES <n>}, {@code hold} and
 * {@code release} with {@code OK}, and exits on {@code quit} or end of input.
 *
 * <p>Lifecycle: {@link #start}, use, {@link #close()} (waits for the child to exit).
 */
public final class EchoServerProcess implements BenchmarkEchoServer {
  /** Thousands of sessions connect at once; the kernel caps this at net.core.somaxconn. */
  public static final int BACKLOG = 65_535;

  private final Process process;
  private final BufferedReader fromChild;
  private final Writer toChild;
  private final List<SocketAddress> addresses;

  private EchoServerProcess(Process process, List<SocketAddress> addresses, BufferedReader fromChild,
      Writer toChild) {
    this.process = process;
    this.addresses = List.copyOf(addresses);
    this.fromChild = fromChild;
    this.toChild = toChild;
  }

  /**
   * Starts a child JVM (this JVM's java and class path, {@code jvmArgs} before the main class)
   * serving on 127.0.0.1 .. 127.0.0.{@code hosts} with {@code delayMillis} per reply.
   */
  public static EchoServerProcess start(int hosts, long delayMillis, List<String> jvmArgs)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmArgs);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(EchoServerProcess.class.getName());
    command.add(Integer.toString(hosts));
    command.add(Long.toString(delayMillis));
    Process process = new ProcessBuilder(command)
        .redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
    BufferedReader in = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII));
    Writer out = new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.US_ASCII);
    List<SocketAddress> addresses = new ArrayList<>();
    try {
      for (String line = in.readLine(); ; line = in.readLine()) {
        if (line == null) {
          throw new IOException("echo server process ended before READY, exit "
              + process.waitFor());
        }
        if (line.equals("READY")) {
          break;
        }
        if (line.startsWith("ADDRESS ")) {
          String hostPort = line.substring("ADDRESS ".length());
          int colon = hostPort.lastIndexOf(':');
          addresses.add(new InetSocketAddress(InetAddress.getByName(hostPort.substring(0, colon)),
              Integer.parseInt(hostPort.substring(colon + 1))));
        }
      }
    } catch (IOException | RuntimeException | InterruptedException e) {
      process.destroyForcibly();
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw e instanceof IOException ? (IOException) e : new IOException(e);
    }
    return new EchoServerProcess(process, addresses, in, out);
  }

  @Override
  public List<SocketAddress> addresses() {
    return addresses;
  }

  @Override
  public synchronized long linesReceived() {
    String reply = ask("lines");
    if (!reply.startsWith("LINES ")) {
      throw new IllegalStateException("echo server process said " + reply);
    }
    return Long.parseLong(reply.substring("LINES ".length()));
  }

  @Override
  public synchronized void hold() {
    expectOk(ask("hold"));
  }

  @Override
  public synchronized void release() {
    expectOk(ask("release"));
  }

  @Override
  public synchronized void close() {
    ChildProcesses.stop(process, toChild, "quit");
  }

  private String ask(String command) {
    try {
      toChild.write(command + "\n");
      toChild.flush();
      String reply = fromChild.readLine();
      if (reply == null) {
        throw new IOException("echo server process ended");
      }
      return reply;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void expectOk(String reply) {
    if (!reply.equals("OK")) {
      throw new IllegalStateException("echo server process said " + reply);
    }
  }

  /** The child's command line: {@code <hosts> <delayMillis>}; then commands on stdin. */
  @Command(name = "EchoServerProcess", description = "The echo server, driven over stdin/stdout.")
  static final class Child implements Callable<Integer> {
    @Parameters(index = "0", description = "bind 127.0.0.1 .. 127.0.0.<hosts>")
    int hosts;
    @Parameters(index = "1", description = "delay per reply, ms")
    long delayMillis;

    @Override
    public Integer call() throws IOException {
      serve(hosts, delayMillis);
      return 0;
    }
  }

  public static void main(String[] args) {
    int code = new CommandLine(new Child()).execute(args);
    if (code != 0) {
      System.exit(code);
    }
  }

  private static void serve(int hosts, long delay) throws IOException {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.US_ASCII);
    try (EchoServer server = EchoServer.builder().loopbackHosts(hosts).backlog(BACKLOG)
        .delay(delay, TimeUnit.MILLISECONDS).startTcp()) {
      for (SocketAddress address : server.addresses()) {
        InetSocketAddress inet = (InetSocketAddress) address;
        out.println("ADDRESS " + inet.getAddress().getHostAddress() + ":" + inet.getPort());
      }
      out.println("READY");
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
      for (String line = in.readLine(); line != null && !line.equals("quit"); line = in.readLine()) {
        switch (line) {
          case "lines":
            out.println("LINES " + server.linesReceived());
            break;
          case "hold":
            server.hold();
            out.println("OK");
            break;
          case "release":
            server.release();
            out.println("OK");
            break;
          default:
            out.println("ERROR unknown command " + line);
        }
      }
    }
  }
}
