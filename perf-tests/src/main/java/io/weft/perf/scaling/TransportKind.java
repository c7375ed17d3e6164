package io.weft.perf.scaling;

import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** How a run's sessions reach the echo server. */
public enum TransportKind {
  /** MINA's in-VM pipe: no sockets, no kernel, no file descriptors. */
  PIPE,
  /** Loopback TCP, possibly over several 127.x addresses. */
  TCP;

  /** Lower-case name, as used on the command line and in result files. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** {@code tcp}, {@code pipe} or {@code vmpipe} (the pipe's other name), any case. */
  public static TransportKind parse(String text) {
    switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "tcp":
        return TCP;
      case "pipe":
      case "vmpipe":
        return PIPE;
      default:
        throw new IllegalArgumentException("not tcp, pipe or vmpipe: " + text);
    }
  }

  /** The command-line form, for picocli. */
  public static final class Converter implements ITypeConverter<TransportKind> {
    @Override
    public TransportKind convert(String value) {
      try {
        return parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
