package io.weft.protocols.parsing;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.weft.testsupport.ScriptedServer;
import io.weft.testsupport.ScriptedServer.Delivery;
import io.weft.transport.Connector;
import io.weft.transport.LineParsing;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.mina.MinaConnector;
import io.weft.transport.netty.NettyConnector;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.spi.Inbound;
import java.time.Duration;
import java.util.ServiceConfigurationError;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What {@link LineParsing#parseLine} does with a parser that breaks its contract, over the
 * transports that parse in place, against a scripted server on loopback: {@code SocketTransport}
 * (its buffer read by the session's thread) and MINA's and Netty's blocking transports (the parser
 * under their state's lock, the shared poll of their continuation transports too). A parser that
 * reads from its transport is refused with an {@code IllegalStateException}; whatever a parser
 * throws, an {@code Error} included, comes out as it is; a parser that answers
 * {@link Inbound#NO_LINE_YET} is refused; each time the line is gone, the transport stays open and
 * the next line reads. Plain calls on the test thread: a parser that reads cannot be written for
 * continuation mode (a read in a lambda handed to the transport is a shape the rewrite refuses), and
 * the guards are the buffer's and the poll's, the same in every mode.
 */
class ParseLineGuardsTest {
  static Stream<Arguments> connectors() {
    return Stream.of(
        arguments("socket", (Supplier<Connector>) SocketConnector::new),
        arguments("mina", (Supplier<Connector>) MinaConnector::tcp),
        arguments("netty", (Supplier<Connector>) NettyConnector::tcp));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("connectors")
  void aParserThatReadsIsRefusedAndWhatAParserThrowsComesOutAsItIs(String name, Supplier<Connector> connectors)
      throws Exception {
    ScriptedServer.Script script = ScriptedServer.script().send("one\r\ntwo\r\nthree\r\nfour\r\nok\r\n")
        .stall(Duration.ofSeconds(5));
    try (ScriptedServer server = ScriptedServer.start(script, Delivery.WHOLE);
        Connector connector = connectors.get();
        Transport transport = connector.connect(server.address(), Timeout.of(10, TimeUnit.SECONDS))) {
      LineParsing lines = (LineParsing) transport;

      IllegalStateException reentered = assertThrows(IllegalStateException.class,
          () -> lines.parseLine(16, (buf, offset, length) -> transport.readLineStrict(16)));
      assertTrue(reentered.getMessage().startsWith("a LineParser called the transport whose line it parses"),
          reentered.getMessage());
      assertTrue(transport.isOpen(), "a refused parser closed the transport");

      IllegalArgumentException own = new IllegalArgumentException("the parser's own");
      assertSame(own, assertThrows(IllegalArgumentException.class, () -> lines.parseLine(16, (buf, offset, length) -> {
        throw own;
      })));

      ServiceConfigurationError error = new ServiceConfigurationError("the parser's own error");
      assertSame(error, assertThrows(ServiceConfigurationError.class,
          () -> lines.parseLine(16, (buf, offset, length) -> {
            throw error;
          })));

      IllegalStateException noLine = assertThrows(IllegalStateException.class,
          () -> lines.parseLine(16, (buf, offset, length) -> Inbound.NO_LINE_YET));
      assertEquals("a LineParser returned Inbound.NO_LINE_YET", noLine.getMessage());

      assertTrue(transport.isOpen(), "a parser's exception closed the transport");
      // Each refused or failed parse took its line: "one" to "four"; the next is read.
      assertEquals("ok", lines.parseLine(16, (buf, offset, length) -> new String(buf, offset, length, ISO_8859_1)));
    }
  }
}
