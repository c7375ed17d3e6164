package io.weft.continuations.testclient;

import io.weft.transport.LineParser;
import io.weft.transport.LineParsing;
import io.weft.transport.Transport;
import java.io.IOException;

/** {@link OwnForwarding} that offers {@link LineParsing} too, forwarding it to a transport that offers it. */
final class OwnForwardingLines extends OwnForwarding implements LineParsing {
  OwnForwardingLines(Transport to) {
    super(to);
  }

  @Override
  public <T> T parseLine(int limit, LineParser<T> parser) throws IOException {
    return ((LineParsing) to).parseLine(limit, parser);
  }
}
