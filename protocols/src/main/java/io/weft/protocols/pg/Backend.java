package io.weft.protocols.pg;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.Transport;
import io.weft.transport.binary.Binary;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the messages a PostgreSQL server sends (protocol 3.0): a type byte, a big-endian 32-bit
 * length that counts itself, the body. One reader per connection; it reuses one body buffer,
 * which grows only as bytes arrive ({@link Binary#readBody}), so a server that claims a huge
 * length and sends little makes the client hold little, and a length over the limit is refused
 * before the body is read.
 *
 * <p>Lifecycle: {@link #next()} reads the next message and makes it current; the accessors
 * parse the current body from its position. The body is valid until the next call.
 */
final class Backend {
  /** Longest name or C string field the parsers accept inside a message. */
  static final int NAME_LIMIT = 64 * 1024;

  private final Transport transport;
  private final int messageLimit;
  private ByteBuffer body = ByteBuffer.allocate(256);
  private int type = -1;

  Backend(Transport transport, int messageLimit) {
    this.transport = transport;
    this.messageLimit = messageLimit;
  }

  /**
   * Reads the next message: its type byte and body.
   *
   * @return the type byte
   * @throws ProtocolViolationException if its length is under 4 or over the limit
   */
  int next() throws IOException {
    type = Binary.readUnsignedByte(transport);
    int length = Binary.readInt(transport);
    if (length < 4) {
      throw new ProtocolViolationException("message '" + (char) type + "' with a length of " + length
          + " (under 4, the length's own size)");
    }
    if (length - 4 > messageLimit) {
      throw new ProtocolViolationException("message '" + (char) type + "' of " + (length - 4)
          + " bytes over the limit of " + messageLimit + " bytes");
    }
    body = Binary.readBody(transport, body, length - 4, messageLimit);
    return type;
  }

  /** The current message's type byte. */
  int type() {
    return type;
  }

  /** The current body, positioned at what has not been parsed yet. */
  ByteBuffer body() {
    return body;
  }

  int int8() throws ProtocolViolationException {
    need(1);
    return body.get() & 0xff;
  }

  int int16() throws ProtocolViolationException {
    need(2);
    return body.getShort();
  }

  int int32() throws ProtocolViolationException {
    need(4);
    return body.getInt();
  }

  String cstring() throws ProtocolViolationException {
    return Binary.getCString(body, NAME_LIMIT);
  }

  /** The rest of the body as bytes. */
  byte[] rest() {
    byte[] bytes = new byte[body.remaining()];
    body.get(bytes);
    return bytes;
  }

  /**
   * A field of {@code length} bytes as UTF-8 text; the length is checked against what the body
   * holds, so no claimed length allocates more than arrived.
   */
  String text(int length) throws ProtocolViolationException {
    need(length);
    String s = new String(body.array(), body.arrayOffset() + body.position(), length, StandardCharsets.UTF_8);
    body.position(body.position() + length);
    return s;
  }

  /** The fields of an ErrorResponse or NoticeResponse: code byte, C string, until a 0. */
  Map<Character, String> fields() throws ProtocolViolationException {
    Map<Character, String> fields = new LinkedHashMap<>();
    for (;;) {
      int code = int8();
      if (code == 0) {
        return fields;
      }
      fields.put((char) code, cstring());
    }
  }

  /** Checks that the current message's body has been read to its end. */
  void end() throws ProtocolViolationException {
    if (body.hasRemaining()) {
      throw new ProtocolViolationException("message '" + (char) type + "' has " + body.remaining()
          + " bytes past its end: " + ProtocolViolationException.quote(rest()));
    }
  }

  private void need(int n) throws ProtocolViolationException {
    if (n < 0 || body.remaining() < n) {
      throw new ProtocolViolationException("message '" + (char) type + "' cut short: " + n
          + " bytes needed, " + body.remaining() + " left");
    }
  }

  /** A violation for a message of a type that cannot come now. */
  ProtocolViolationException unexpected(String when) {
    return new ProtocolViolationException("unexpected message '" + printable(type) + "' " + when);
  }

  static String printable(int type) {
    return type >= 0x20 && type < 0x7f ? String.valueOf((char) type) : "\\x" + Integer.toHexString(type);
  }
}
