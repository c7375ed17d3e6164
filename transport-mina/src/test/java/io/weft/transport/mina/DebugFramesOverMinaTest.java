package io.weft.transport.mina;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.NotInstrumentedError;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.transport.Timeout;
import io.weft.transport.mina.testclient.EchoLinesTask;
import io.weft.transport.mina.testclient.ReflectiveEchoTask;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.service.IoHandlerAdapter;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.transport.vmpipe.VmPipeAcceptor;
import org.apache.mina.transport.vmpipe.VmPipeAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code debugFrames(true)} over the real continuing transports: every frame of every suspend
 * path is checked, through the connector's compiler bridge method ({@code connect} returns
 * {@code SuspendingMinaTransport}, so javac adds a {@code Transport connect} bridge), and a
 * client's sessions pass; a frame that was not rewritten is named, and the error reaches the
 * outcome unwrapped even through reflection and a {@code catch (Exception e)}.
 */
class DebugFramesOverMinaTest {
  private static final String CLIENT = "io.weft.transport.mina.testclient";
  private static final int SESSIONS = 200;

  private SuspendingMinaConnector connector;
  private AutoCloseable server;

  @AfterEach
  void stop() throws Exception {
    if (connector != null) {
      connector.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void debugFramesPassEverySessionOverTcpThroughTheConnectorsBridge() throws Exception {
    connector = SuspendingMinaConnector.tcp();
    SocketAddress address = tcpEcho();
    RunResult<String> result = run(address, EchoLinesTask.class, 3);
    assertTrue(result.allSucceeded(), () -> result.failures().get(0).toString());
    for (int i = 0; i < SESSIONS; i++) {
      assertEquals(i + ":" + (3 * ("session " + i + " line 0").length()), result.outcome(i).value());
    }
  }

  @Test
  void debugFramesPassEverySessionOverThePipe() throws Exception {
    connector = SuspendingMinaConnector.vmPipe();
    SocketAddress address = pipeEcho();
    RunResult<String> result = run(address, EchoLinesTask.class, 3);
    assertTrue(result.allSucceeded(), () -> result.failures().get(0).toString());
  }

  @Test
  void aReflectiveFrameIsNamedOverTcpAndItsErrorIsNotWrapped() throws Exception {
    connector = SuspendingMinaConnector.tcp();
    SocketAddress address = tcpEcho();
    RunResult<String> result = run(address, ReflectiveEchoTask.class);
    assertEquals(SESSIONS, result.count(Outcome.Status.FAILED), () -> result.outcomes().toString());
    for (Outcome<String> o : result.outcomes()) {
      NotInstrumentedError e = assertInstanceOf(NotInstrumentedError.class, o.failure(), () -> String.valueOf(o));
      assertEquals(ReflectiveEchoTask.class.getName(), e.className(), e.getMessage());
      assertEquals("run", e.methodName(), e.getMessage());
      assertTrue(e.getMessage().contains("java.lang.reflect.Method.invoke"), e.getMessage());
    }
  }

  private RunResult<String> run(SocketAddress address, Class<? extends io.weft.transport.SessionTask<String>> task,
      Object... args) throws InterruptedException {
    try (SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1)).connector(connector)
        .address(address).timeout(Timeout.of(20, TimeUnit.SECONDS)).instrument(CLIENT).debugFrames(true).build()) {
      return runner.run(task, SESSIONS, args);
    }
  }

  /** A loopback line echo server: a thread per connection, until the peer closes. */
  private SocketAddress tcpEcho() throws IOException {
    ServerSocket socket = new ServerSocket(0, SESSIONS, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(() -> {
      while (!socket.isClosed()) {
        try {
          Socket s = socket.accept();
          Thread echo = new Thread(() -> echoLines(s), "echo-connection");
          echo.setDaemon(true);
          echo.start();
        } catch (IOException e) {
          return;
        }
      }
    }, "echo-acceptor");
    acceptor.setDaemon(true);
    acceptor.start();
    server = socket;
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), socket.getLocalPort());
  }

  private static void echoLines(Socket s) {
    try (s; BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))) {
      OutputStream out = s.getOutputStream();
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
    } catch (IOException e) {
      // the client closed
    }
  }

  /** An in-VM pipe echo server: every message goes back as it came. */
  private SocketAddress pipeEcho() throws IOException {
    VmPipeAcceptor acceptor = new VmPipeAcceptor();
    acceptor.setHandler(new IoHandlerAdapter() {
      @Override
      public void messageReceived(IoSession session, Object message) {
        IoBuffer in = (IoBuffer) message;
        IoBuffer copy = IoBuffer.allocate(in.remaining());
        copy.put(in);
        copy.flip();
        session.write(copy);
      }
    });
    acceptor.bind(new VmPipeAddress(0));
    server = () -> acceptor.dispose(true);
    return acceptor.getLocalAddress();
  }
}
