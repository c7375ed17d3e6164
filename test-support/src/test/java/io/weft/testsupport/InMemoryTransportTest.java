package io.weft.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.weft.transport.TransportClosedException;
import java.io.EOFException;
import org.junit.jupiter.api.Test;

class InMemoryTransportTest {

  @Test
  void oneByteAtATimeNeedsADeliveryPerByteAndReadsTheSameLines() throws Exception {
    InMemoryTransport whole = InMemoryTransport.of("ab\r\ncd\n");
    InMemoryTransport trickled = InMemoryTransport.oneByteAtATime("ab\r\ncd\n");
    for (InMemoryTransport transport : new InMemoryTransport[] {whole, trickled}) {
      assertEquals("ab", transport.readLineStrict(10));
      assertEquals("cd", transport.readLineStrict(10));
      assertNull(transport.readLine(10), "a clean end of stream after the script");
      assertEquals(0, transport.unread());
    }
    assertEquals(1, whole.deliveries());
    assertEquals(7, trickled.deliveries());
  }

  @Test
  void aReadPastTheScriptIsTheEndOfTheStream() throws Exception {
    InMemoryTransport transport = InMemoryTransport.oneByteAtATime("abc");
    byte[] buffer = new byte[10];
    assertEquals(1, transport.read(buffer, 0, 10));
    assertThrows(EOFException.class, () -> transport.readLineStrict(10));
    assertEquals(-1, InMemoryTransport.of("").read(buffer, 0, 10));
  }

  @Test
  void onlyFlushedWritesAreRecorded() throws Exception {
    InMemoryTransport transport = InMemoryTransport.of("");
    transport.writeLine("one");
    assertEquals("", transport.written());
    transport.flush();
    transport.write("two");
    transport.flush();
    assertEquals("one\r\ntwo", transport.written());
  }

  @Test
  void afterCloseEveryOperationThrows() {
    InMemoryTransport transport = InMemoryTransport.of("x\n");
    transport.close();
    assertFalse(transport.isOpen());
    assertThrows(TransportClosedException.class, () -> transport.readLine(10));
    assertThrows(TransportClosedException.class, () -> transport.write("x"));
    assertThrows(TransportClosedException.class, transport::flush);
  }
}
