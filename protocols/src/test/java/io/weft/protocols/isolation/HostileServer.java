package io.weft.protocols.isolation;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A loopback server that answers each connection as its first request asks: a Redis command
 * {@code ROLE <role>} or an HTTP {@code GET /<role>}. {@code control} sessions get well-formed
 * Redis replies ({@code PING} → {@code +PONG}, anything else → a 5-byte bulk string) for as long as
 * they ask; the other roles get what a hostile server sends, each bounded in what it writes (at
 * most {@link #MAX_HOSTILE_BYTES}), so that the server stops by itself:
 * <ul>
 *   <li>{@code claim}: {@code $67108864} and 256 KiB of it, then a close;</li>
 *   <li>{@code nested}: arrays of 1,048,576 nested two deep, then {@code *0} elements without end;</li>
 *   <li>{@code chunked}: a 200 response with chunks of 16 KiB without end;</li>
 *   <li>{@code close}: a 200 response framed by the close, 16 KiB writes without end.</li>
 * </ul>
 * A thread per connection; {@link #close()} ends them all.
 */
final class HostileServer implements Closeable {
  /** What one hostile connection writes at most before it gives up. */
  static final int MAX_HOSTILE_BYTES = 8 * 1024 * 1024;

  private final ServerSocket server;
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "hostile-server");
    t.setDaemon(true);
    return t;
  });
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();

  HostileServer() throws IOException {
    server = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
    threads.execute(this::acceptLoop);
  }

  InetSocketAddress address() {
    return new InetSocketAddress(server.getInetAddress(), server.getLocalPort());
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      Socket socket;
      try {
        socket = server.accept();
      } catch (IOException e) {
        return;
      }
      open.add(socket);
      threads.execute(() -> serve(socket));
    }
  }

  private void serve(Socket socket) {
    try (Socket s = socket) {
      s.setTcpNoDelay(true);
      InputStream in = new BufferedInputStream(s.getInputStream());
      OutputStream out = s.getOutputStream();
      String first = line(in);
      if (first == null) {
        return;
      }
      if (first.startsWith("GET /")) {
        String role = first.substring(5, first.indexOf(' ', 5));
        while (!line(in).isEmpty()) {
          // The request's headers, unread.
        }
        http(role, out);
        return;
      }
      String[] command = command(first, in);
      if (!command[0].equals("ROLE")) {
        throw new IOException("expected ROLE first, got " + Arrays.toString(command));
      }
      String role = command[1];
      if (role.equals("control")) {
        write(out, "+OK\r\n");
        control(in, out);
      } else {
        redis(role, out);
      }
    } catch (IOException e) {
      // The client gave up or was refused: what a hostile server expects.
    } finally {
      open.remove(socket);
    }
  }

  private static void control(InputStream in, OutputStream out) throws IOException {
    String first;
    while ((first = line(in)) != null) {
      String[] command = command(first, in);
      write(out, command[0].equals("PING") ? "+PONG\r\n" : "$5\r\nvalue\r\n");
    }
  }

  private static void redis(String role, OutputStream out) throws IOException {
    switch (role) {
      case "claim":
        write(out, "$67108864\r\n");
        byte[] some = new byte[16 * 1024];
        Arrays.fill(some, (byte) 'c');
        for (int i = 0; i < 16; i++) {
          out.write(some);
        }
        out.flush();
        return;
      case "nested":
        write(out, "*1048576\r\n*1048576\r\n");
        endless(out, "*0\r\n");
        return;
      default:
        throw new IOException("no such role: " + role);
    }
  }

  private static void http(String role, OutputStream out) throws IOException {
    switch (role) {
      case "chunked":
        write(out, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
        endless(out, "4000\r\n" + "x".repeat(0x4000) + "\r\n");
        return;
      case "close":
        write(out, "HTTP/1.1 200 OK\r\n\r\n");
        endless(out, "y".repeat(16 * 1024));
        return;
      default:
        throw new IOException("no such role: " + role);
    }
  }

  /** {@code unit} over and over, in writes of about 16 KiB, until the client stops reading or the cap. */
  private static void endless(OutputStream out, String unit) throws IOException {
    byte[] chunk = unit.repeat(Math.max(1, 16 * 1024 / unit.length())).getBytes(StandardCharsets.US_ASCII);
    for (int sent = 0; sent < MAX_HOSTILE_BYTES; sent += chunk.length) {
      out.write(chunk);
    }
    out.flush();
  }

  private static void write(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  /** A RESP command whose first line is {@code first}: {@code *n}, then n bulk strings. */
  private static String[] command(String first, InputStream in) throws IOException {
    if (!first.startsWith("*")) {
      throw new IOException("not a RESP command: " + first);
    }
    String[] args = new String[Integer.parseInt(first.substring(1))];
    for (int i = 0; i < args.length; i++) {
      line(in);
      args[i] = line(in);
    }
    return args;
  }

  /** A line without its CRLF, or null at the end of the stream; lines here are short. */
  private static String line(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    for (int b; (b = in.read()) != -1; ) {
      if (b == '\n') {
        int end = line.length() > 0 && line.charAt(line.length() - 1) == '\r' ? line.length() - 1 : line.length();
        return line.substring(0, end);
      }
      if (line.length() > 1024) {
        throw new IOException("line too long");
      }
      line.append((char) b);
    }
    return null;
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : open) {
      s.close();
    }
    threads.shutdownNow();
  }
}
