package io.weft.testsupport;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.testsupport.ScriptedServer.Delivery;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
class ScriptedServerTest {

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void playsItsScriptAndRecordsWhatTheClientSent(Delivery delivery) throws Exception {
    ScriptedServer.Script script = ScriptedServer.script().send("hello\r\n").expectLine("hi").readLine().send("bye").close();
    try (ScriptedServer server = ScriptedServer.start(script, delivery)) {
      try (Socket socket = new Socket()) {
        socket.connect(server.address(), 5000);
        socket.setSoTimeout(5000);
        OutputStream out = socket.getOutputStream();
        out.write("hi\r\nanything\n".getBytes(UTF_8));
        out.flush();
        InputStream in = socket.getInputStream();
        assertArrayEquals("hello\r\nbye".getBytes(UTF_8), in.readAllBytes());
      }
      server.awaitScript(Duration.ofSeconds(10));
      assertEquals(List.of("hi", "anything"), server.receivedLines());
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void anUnexpectedClientLineFailsTheScript(Delivery delivery) throws Exception {
    try (ScriptedServer server = ScriptedServer.start(ScriptedServer.script().expectLine("EHLO x"), delivery)) {
      try (Socket socket = new Socket()) {
        socket.connect(server.address(), 5000);
        socket.getOutputStream().write("HELO x\r\n".getBytes(UTF_8));
        AssertionError e = assertThrows(AssertionError.class, () -> server.awaitScript(Duration.ofSeconds(10)));
        assertTrue(e.getMessage().contains("HELO x"), e.getMessage());
      }
    }
  }
}
