package io.weft.testsupport;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real server program started for a test, listening on a loopback port, with its own
 * temporary directory. {@link #close()} kills it (and its children), waits for it to exit and
 * deletes the directory. Subclasses say how to start it and how to tell it is ready.
 */
public abstract class ServerProcess implements Closeable {
  private static final Duration STOP_WAIT = Duration.ofSeconds(10);
  private static final long POLL_MILLIS = 20;

  private final String name;
  private final int port;
  private final Path directory;
  private final Path log;
  private Process process;

  protected ServerProcess(String name, int port, Path directory) {
    this.name = name;
    this.port = port;
    this.directory = directory;
    this.log = directory.resolve(name + ".out");
  }

  /** The port it listens on, on 127.0.0.1. */
  public int port() {
    return port;
  }

  /** Its address. */
  public InetSocketAddress address() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
  }

  /** Its private temporary directory. */
  public Path directory() {
    return directory;
  }

  /** Its process (to signal it: a test that stops a server's accept loop with SIGSTOP); null before start. */
  public ProcessHandle handle() {
    return process == null ? null : process.toHandle();
  }

  /** Starts the program with {@code command} and waits until {@link #isReady()} or fails. */
  protected final void start(List<String> command, Duration readyWithin) throws IOException {
    ProcessBuilder builder = new ProcessBuilder(command)
        .directory(directory.toFile())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile());
    process = builder.start();
    long deadline = System.nanoTime() + readyWithin.toNanos();
    try {
      for (;;) {
        if (!process.isAlive()) {
          throw new IOException(name + " exited with " + process.exitValue() + " before it was ready; "
              + command + "\n" + describeLogs());
        }
        if (isReady()) {
          return;
        }
        if (System.nanoTime() - deadline > 0) {
          throw new IOException(name + " not ready within " + readyWithin + "; " + command + "\n" + describeLogs());
        }
        // Polls the server's readiness (its own state); nothing is ordered by this pause.
        Thread.sleep(POLL_MILLIS);
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    } catch (InterruptedException e) {
      close();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while starting " + name, e);
    }
  }

  /** True once the server answers. The default: something accepts a TCP connection. */
  protected boolean isReady() {
    try (Socket socket = new Socket()) {
      socket.connect(address(), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The program's output and any log files, for failure messages. */
  public String describeLogs() {
    StringBuilder out = new StringBuilder();
    try (var files = Files.walk(directory, 2)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(file) && (file.toString().endsWith(".out") || file.toString().endsWith(".log"))) {
          String text = Files.readString(file, StandardCharsets.UTF_8);
          out.append("--- ").append(file.getFileName()).append(" ---\n")
              .append(text.length() > 4000 ? text.substring(text.length() - 4000) : text).append('\n');
        }
      }
    } catch (IOException | UncheckedIOException e) {
      out.append("(logs unreadable: ").append(e).append(")");
    }
    return out.toString();
  }

  @Override
  public void close() {
    Process p = process;
    if (p != null) {
      p.descendants().forEach(ProcessHandle::destroy);
      p.destroy();
      try {
        if (!p.waitFor(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
          p.descendants().forEach(ProcessHandle::destroyForcibly);
          p.destroyForcibly();
          p.waitFor(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
    deleteTree(directory);
  }

  private static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try {
      Files.walkFileTree(root, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
          Files.deleteIfExists(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
          Files.deleteIfExists(dir);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException ignored) {
      // A leftover temp directory is not worth failing a test over.
    }
  }
}
