package io.weft.protocols.pg;

import io.weft.transport.Transport;
import io.weft.transport.binary.Binary;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The messages a PostgreSQL client sends (protocol 3.0), each built in memory and buffered on the
 * transport in one write: a type byte (none for the startup-phase messages), a big-endian 32-bit
 * length that counts itself, the body. Nothing here flushes. The writes never suspend, so this
 * class is plain code in every mode.
 */
final class Frontend {
  /** Protocol version 3.0, as the StartupMessage carries it. */
  static final int PROTOCOL_3_0 = 196608;
  /** The "version" of SSLRequest. */
  static final int SSL_REQUEST_CODE = 80877103;
  /** The "version" of CancelRequest. */
  static final int CANCEL_REQUEST_CODE = 80877102;

  private Frontend() {}

  /** A growable message body. */
  static final class Message {
    private byte[] bytes = new byte[64];
    private int length;
    private final int type;

    /** @param type the type byte, or -1 for a startup-phase message that has none */
    Message(int type) {
      this.type = type;
      // Room for the type and the length, filled in by send.
      length = type < 0 ? 4 : 5;
    }

    Message int8(int v) {
      ensure(1);
      bytes[length++] = (byte) v;
      return this;
    }

    Message int16(int v) {
      ensure(2);
      bytes[length++] = (byte) (v >>> 8);
      bytes[length++] = (byte) v;
      return this;
    }

    Message int32(int v) {
      ensure(4);
      bytes[length++] = (byte) (v >>> 24);
      bytes[length++] = (byte) (v >>> 16);
      bytes[length++] = (byte) (v >>> 8);
      bytes[length++] = (byte) v;
      return this;
    }

    Message bytes(byte[] b) {
      ensure(b.length);
      System.arraycopy(b, 0, bytes, length, b.length);
      length += b.length;
      return this;
    }

    Message cstring(String s) {
      return bytes(Binary.cString(s));
    }

    /** Fills in the type and length and buffers the message on {@code transport}. */
    void send(Transport transport) throws IOException {
      int start = 0;
      if (type >= 0) {
        bytes[0] = (byte) type;
        start = 1;
      }
      ByteBuffer.wrap(bytes, start, 4).putInt(length - start);
      transport.write(bytes, 0, length);
    }

    /** The message as sent, for tests of the encoding. */
    byte[] toBytes() {
      int start = type >= 0 ? 1 : 0;
      if (type >= 0) {
        bytes[0] = (byte) type;
      }
      ByteBuffer.wrap(bytes, start, 4).putInt(length - start);
      return Arrays.copyOf(bytes, length);
    }

    private void ensure(int more) {
      if (length + more > bytes.length) {
        bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
      }
    }
  }

  static void sslRequest(Transport t) throws IOException {
    new Message(-1).int32(SSL_REQUEST_CODE).send(t);
  }

  static void startup(Transport t, Map<String, String> parameters) throws IOException {
    Message m = new Message(-1).int32(PROTOCOL_3_0);
    for (Map.Entry<String, String> e : parameters.entrySet()) {
      m.cstring(e.getKey()).cstring(e.getValue());
    }
    m.int8(0).send(t);
  }

  static void cancelRequest(Transport t, int processId, int secretKey) throws IOException {
    new Message(-1).int32(CANCEL_REQUEST_CODE).int32(processId).int32(secretKey).send(t);
  }

  static void password(Transport t, String password) throws IOException {
    new Message('p').cstring(password).send(t);
  }

  static void saslInitialResponse(Transport t, String mechanism, byte[] data) throws IOException {
    new Message('p').cstring(mechanism).int32(data.length).bytes(data).send(t);
  }

  static void saslResponse(Transport t, byte[] data) throws IOException {
    new Message('p').bytes(data).send(t);
  }

  static void query(Transport t, String sql) throws IOException {
    new Message('Q').cstring(sql).send(t);
  }

  /** Parse of the unnamed statement, leaving every parameter's type to the server. */
  static void parse(Transport t, String sql, int parameters) throws IOException {
    Message m = new Message('P').cstring("").cstring(sql).int16(parameters);
    for (int i = 0; i < parameters; i++) {
      m.int32(0);
    }
    m.send(t);
  }

  /** Bind of the unnamed portal to the unnamed statement: text parameters, text results. */
  static void bind(Transport t, List<String> parameters) throws IOException {
    Message m = new Message('B').cstring("").cstring("").int16(0).int16(parameters.size());
    for (String p : parameters) {
      if (p == null) {
        m.int32(-1);
      } else {
        byte[] value = p.getBytes(StandardCharsets.UTF_8);
        m.int32(value.length).bytes(value);
      }
    }
    m.int16(0).send(t);
  }

  static void describePortal(Transport t) throws IOException {
    new Message('D').int8('P').cstring("").send(t);
  }

  static void execute(Transport t, int maxRows) throws IOException {
    new Message('E').cstring("").int32(maxRows).send(t);
  }

  static void sync(Transport t) throws IOException {
    new Message('S').send(t);
  }

  static void copyFail(Transport t, String reason) throws IOException {
    new Message('f').cstring(reason).send(t);
  }

  static void terminate(Transport t) throws IOException {
    new Message('X').send(t);
  }
}
