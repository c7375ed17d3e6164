package io.weft.transport.mina.testclient;

import io.weft.continuations.spi.EventLoopThread;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import io.weft.transport.spi.InboundState;
import java.io.IOException;
import java.util.function.Function;

/**
 * Echoes numbered lines and answers, as "lines:pairs:confined:elsewhere:bound", how its reads that
 * returned on an event-loop thread saw the connection's state: {@code pairs} counts the reads
 * that returned on the loop right after another that did; {@code confined} those of them across
 * which the loop ran sections of the state without its lock (the delivery of the reply and the
 * poll that took it); {@code elsewhere} the reads that returned on a loop thread the state is not
 * confined to; {@code bound} whether, after the last read, the state is confined to any thread.
 */
public final class ConfinedReadsTask implements SessionTask<String> {
  private final int lines;
  private final Function<Transport, InboundState<?>> states;

  public ConfinedReadsTask(int lines, Function<Transport, InboundState<?>> states) {
    this.lines = lines;
    this.states = states;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    InboundState<?> state = states.apply(transport);
    int pairs = 0;
    int confined = 0;
    int elsewhere = 0;
    long last = -1L;
    for (int i = 0; i < lines; i++) {
      String sent = "session " + index + " line " + i;
      transport.writeLine(sent);
      transport.flush();
      String got = transport.readLineStrict(200);
      if (!sent.equals(got)) {
        throw new ProtocolViolationException("sent " + sent + ", got " + got);
      }
      if (!EventLoopThread.inEventLoop()) {
        last = -1L;
      } else if (!state.isConfinedToCurrentThread()) {
        elsewhere++;
        last = -1L;
      } else {
        long sections = state.confinedSections();
        if (last >= 0L) {
          pairs++;
          if (sections > last) {
            confined++;
          }
        }
        last = sections;
      }
    }
    return lines + ":" + pairs + ":" + confined + ":" + elsewhere + ":" + state.isConfined();
  }
}
