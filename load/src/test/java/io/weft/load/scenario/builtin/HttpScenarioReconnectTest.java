package io.weft.load.scenario.builtin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.weft.load.record.OpRecorder;
import io.weft.protocols.http.HttpClient;
import io.weft.testsupport.InMemoryTransport;
import java.lang.reflect.Field;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A user of {@code http --no-keep-alive} connects anew for every request; its client for each new
 * connection starts its buffer at the size the last connection's responses fitted (halving from
 * 2 KiB towards what a response held), not at a fresh client's 2 KiB per connection.
 */
class HttpScenarioReconnectTest {
  private static final String RESPONSE = "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Length: 17\r\n"
      + "Connection: close\r\n\r\nhello from nginx\n";

  @Test
  void aReconnectingUsersClientStartsWhereTheLastConnectionsBufferGotTo() throws Exception {
    HttpScenario scenario = new HttpScenario(Map.of("keepAlive", "false"));
    OpRecorder ops = new NoOps();
    int[] starts = new int[5];
    for (int i = 0; i < starts.length; i++) {
      InMemoryTransport connection = InMemoryTransport.of(RESPONSE);
      scenario.connected(connection, ops);
      starts[i] = field(field(scenario, HttpScenario.class, "http"), HttpClient.class, "firstIn");
      scenario.iteration(ops);
      assertFalse(connection.isOpen(), "the iteration closed its connection");
    }
    // A 90-byte response: 1.5 x 90 is 135, 192 rounded up to 64; the start halves at most per response.
    assertArrayEquals(new int[] {2048, 1024, 512, 256, 192}, starts);
  }

  @SuppressWarnings("unchecked")
  private static <T> T field(Object owner, Class<?> type, String name) throws ReflectiveOperationException {
    Field field = type.getDeclaredField(name);
    field.setAccessible(true);
    return (T) field.get(owner);
  }

  /** Records nothing: the test looks at the client, not the figures. */
  private static final class NoOps implements OpRecorder {
    @Override
    public Timer start(String name) {
      return () -> { };
    }

    @Override
    public long start() {
      return 0L;
    }

    @Override
    public void stop(String name, long startNanos) {
    }

    @Override
    public void error(String name, Throwable error) {
    }

    @Override
    public void error(String name, String type) {
    }
  }
}
