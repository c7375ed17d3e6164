package io.weft.transport;

import java.io.Closeable;
import java.io.IOException;
import java.net.SocketAddress;
import java.time.Duration;

/**
 * The far end of a transport under test: a real server endpoint (a loopback server socket, a
 * MINA in-VM acceptor) that the test scripts byte by byte. Used by {@link TransportContract}.
 */
public interface Peer extends Closeable {

  /** The address clients connect to. */
  SocketAddress address();

  /** Waits for the next accepted connection. */
  Connection accept(Duration timeout) throws IOException, InterruptedException;

  /** One accepted connection, driven from the test thread. */
  interface Connection extends Closeable {
    /** Sends {@code bytes} at once. */
    void send(byte[] bytes) throws IOException;

    /** Sends {@code bytes} one byte per delivery, pausing briefly between them. */
    void sendOneByteAtATime(byte[] bytes) throws IOException, InterruptedException;

    /** Reads a line (without terminator) sent by the client, or null at end of stream. */
    String readLine(Duration timeout) throws IOException, InterruptedException;

    /** Reads exactly {@code n} bytes sent by the client. */
    byte[] readBytes(int n, Duration timeout) throws IOException, InterruptedException;

    /** Closes cleanly: the client sees end of stream. */
    @Override
    void close() throws IOException;

    /** Aborts: a TCP reset where the transport has one, otherwise an abrupt close. */
    void reset() throws IOException;
  }
}
