package io.weft.protocols.rewrite.frames;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import io.weft.transport.binary.Binary;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A binary client as a user writes one, reading and writing only through {@link Binary}: per
 * round it sends an int, a short, a long, a C string and a length-prefixed frame, and reads the
 * same back from an echo server. The frame's body ends with a line feed, so the line-echoing
 * server answers every byte. Its reads wait inside {@code Binary}, which is what the build-time
 * rewrite must make suspendable.
 */
public final class FrameEchoTask implements SessionTask<String> {
  private final int rounds;

  public FrameEchoTask(int rounds) {
    this.rounds = rounds;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    StringBuilder summary = new StringBuilder().append(index);
    ByteBuffer reused = null;
    for (int round = 0; round < rounds; round++) {
      String name = "s" + index + "r" + round;
      byte[] body = ("session " + index + " round " + round + "\n").getBytes(StandardCharsets.UTF_8);
      Binary.writeInt(transport, index);
      Binary.writeShort(transport, -round);
      Binary.writeLong(transport, ((long) index << 32) | round);
      Binary.writeCString(transport, name);
      Binary.writeFrame(transport, ByteBuffer.wrap(body));
      transport.flush();
      int i = Binary.readInt(transport);
      short s = Binary.readShort(transport);
      long l = Binary.readLong(transport);
      String c = Binary.readCString(transport, 64);
      reused = Binary.readFrame(transport, reused, 1024);
      byte[] echoed = new byte[reused.remaining()];
      reused.get(echoed);
      String text = new String(echoed, StandardCharsets.UTF_8);
      if (i != index || s != -round || l != (((long) index << 32) | round) || !c.equals(name)
          || !text.equals(new String(body, StandardCharsets.UTF_8))) {
        throw new ProtocolViolationException("echo mismatch in round " + round + ": " + i + ", " + s + ", " + l
            + ", " + ProtocolViolationException.quote(c) + ", " + ProtocolViolationException.quote(text));
      }
      summary.append('|').append(i).append(',').append(s).append(',').append(l).append(',').append(c)
          .append(',').append(text.trim());
    }
    return summary.toString();
  }
}
