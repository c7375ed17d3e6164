package io.weft.simulation.servers;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A tiny Redis: RESP2 over a transport, with one keyspace shared by every connection of the
 * server (the simulation runs one session at a time, so no lock is needed). Commands: {@code PING
 * [msg]}, {@code ECHO}, {@code GET}, {@code SET}, {@code DEL}, {@code INCR}, {@code EXISTS},
 * {@code QUIT}; anything else is answered with {@code -ERR unknown command}. Requests are RESP
 * arrays of bulk strings, as clients send them.
 */
public final class RedisServer implements SessionTask<String> {
  private static final int LINE_LIMIT = 64 * 1024;
  private static final int MAX_BULK = 16 * 1024 * 1024;
  private static final int MAX_ARGS = 1024 * 1024;

  private final Map<String, byte[]> keyspace = new HashMap<>();

  /** An empty Redis. */
  public RedisServer() {}

  @Override
  public String run(Transport transport, int session) throws IOException {
    int commands = 0;
    for (;;) {
      String header = transport.readLine(LINE_LIMIT);
      if (header == null) {
        return "served " + commands;
      }
      if (header.isEmpty() || header.charAt(0) != '*') {
        throw new ProtocolViolationException("expected a RESP array but got " + ProtocolViolationException.quote(header));
      }
      int count = parse(header, MAX_ARGS);
      byte[][] args = new byte[count][];
      for (int i = 0; i < count; i++) {
        String bulk = transport.readLineStrict(LINE_LIMIT);
        if (bulk.isEmpty() || bulk.charAt(0) != '$') {
          throw new ProtocolViolationException("expected a bulk string but got " + ProtocolViolationException.quote(bulk));
        }
        int length = parse(bulk, MAX_BULK);
        args[i] = transport.readBytes(length);
        if (!transport.readLineStrict(0).isEmpty()) {
          throw new ProtocolViolationException("bulk string not followed by CRLF");
        }
      }
      commands++;
      if (count > 0 && !answer(transport, args)) {
        transport.flush();
        return "served " + commands;
      }
      transport.flush();
    }
  }

  private static int parse(String line, int max) throws ProtocolViolationException {
    try {
      int n = Integer.parseInt(line.substring(1));
      if (n < 0 || n > max) {
        throw new ProtocolViolationException("length out of range: " + ProtocolViolationException.quote(line));
      }
      return n;
    } catch (NumberFormatException e) {
      throw new ProtocolViolationException("not a length: " + ProtocolViolationException.quote(line));
    }
  }

  /** Writes the reply; false for QUIT. */
  private boolean answer(Transport t, byte[][] args) throws IOException {
    String command = new String(args[0], StandardCharsets.UTF_8).toUpperCase(Locale.ROOT);
    switch (command) {
      case "PING":
        if (args.length > 1) {
          bulk(t, args[1]);
        } else {
          t.write("+PONG\r\n");
        }
        return true;
      case "ECHO":
        if (arity(t, args, 2)) {
          bulk(t, args[1]);
        }
        return true;
      case "GET":
        if (arity(t, args, 2)) {
          bulk(t, keyspace.get(key(args[1])));
        }
        return true;
      case "SET":
        if (arity(t, args, 3)) {
          keyspace.put(key(args[1]), args[2]);
          t.write("+OK\r\n");
        }
        return true;
      case "DEL":
      case "EXISTS":
        long n = 0;
        for (int i = 1; i < args.length; i++) {
          boolean present = command.equals("DEL") ? keyspace.remove(key(args[i])) != null
              : keyspace.containsKey(key(args[i]));
          n += present ? 1 : 0;
        }
        t.write(":" + n + "\r\n");
        return true;
      case "INCR":
        if (arity(t, args, 2)) {
          incr(t, key(args[1]));
        }
        return true;
      case "QUIT":
        t.write("+OK\r\n");
        return false;
      default:
        t.write("-ERR unknown command '" + command + "'\r\n");
        return true;
    }
  }

  private void incr(Transport t, String key) throws IOException {
    byte[] old = keyspace.get(key);
    long value;
    try {
      value = old == null ? 0L : Long.parseLong(new String(old, StandardCharsets.UTF_8));
    } catch (NumberFormatException e) {
      t.write("-ERR value is not an integer or out of range\r\n");
      return;
    }
    value++;
    keyspace.put(key, Long.toString(value).getBytes(StandardCharsets.UTF_8));
    t.write(":" + value + "\r\n");
  }

  private static boolean arity(Transport t, byte[][] args, int wanted) throws IOException {
    if (args.length != wanted) {
      t.write("-ERR wrong number of arguments\r\n");
      return false;
    }
    return true;
  }

  private static String key(byte[] raw) {
    return new String(raw, StandardCharsets.ISO_8859_1);
  }

  private static void bulk(Transport t, byte[] value) throws IOException {
    if (value == null) {
      t.write("$-1\r\n");
      return;
    }
    t.write("$" + value.length + "\r\n");
    t.write(value);
    t.write("\r\n");
  }
}
