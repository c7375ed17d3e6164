package io.weft.continuations.internal.rewrite;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.objectweb.asm.Opcodes;

/**
 * What waits, as the transport API declares it: every abstract method of {@code Transport} that
 * declares an exception (an operation that can block; {@code timeout()}, {@code isOpen()} and
 * {@code close()} declare none), and so of {@code LineParsing} (the optional capability a transport
 * may offer: {@code parseLine}), {@code Connector.connect}, and {@code SessionTask.run} (the
 * bottom frame every session starts in). These are marked {@code @continuable} in the bytes the
 * engine reads, though the API classes themselves are loaded unchanged.
 */
final class Waits {
  static final String TRANSPORT = "io/weft/transport/Transport";
  static final String LINE_PARSING = "io/weft/transport/LineParsing";
  static final String CONNECTOR = "io/weft/transport/Connector";
  static final String SESSION_TASK = "io/weft/transport/SessionTask";
  static final MethodRef TASK_RUN = MethodRef.of(SESSION_TASK, "run", "(Lio/weft/transport/Transport;I)Ljava/lang/Object;");
  private static final List<String> API =
      List.of(TRANSPORT, LINE_PARSING, CONNECTOR, SESSION_TASK);
  /** The interfaces whose abstract methods that declare an exception wait. */
  private static final List<String> WAITING_INTERFACES = List.of(TRANSPORT, LINE_PARSING);

  private final ClassIndex index;
  private Set<MethodRef> transportWaits;

  Waits(ClassIndex index) {
    this.index = index;
  }

  /** True if a call to {@code m}, as named in the instruction, is a wait of the API. */
  boolean isApiWait(MethodRef m) {
    switch (m.owner()) {
      case TRANSPORT:
      case LINE_PARSING:
        return transportWaits().contains(m);
      case CONNECTOR:
        return m.name().equals("connect");
      case SESSION_TASK:
        return m.equals(TASK_RUN);
      default:
        return false;
    }
  }

  /** The API's waiting methods, to be marked {@code @continuable} where the engine reads them. */
  Set<MethodRef> apiMarks() {
    Set<MethodRef> marks = new HashSet<>();
    for (String api : API) {
      ClassInfo c = index.info(api);
      if (c != null) {
        for (MethodInfo m : c.methods()) {
          if (isApiWait(m.ref)) {
            marks.add(m.ref);
          }
        }
      }
    }
    return marks;
  }

  /**
   * The methods of {@code className} with the name and type of a waiting method of
   * {@code Transport} or {@code LineParsing}.
   */
  Set<MethodRef> transportWaitsOf(String className) {
    Set<MethodRef> out = new HashSet<>();
    ClassInfo c = index.info(className);
    if (c != null) {
      for (MethodInfo m : c.methods()) {
        for (String api : WAITING_INTERFACES) {
          if (transportWaits().contains(m.ref.in(api))) {
            out.add(m.ref);
          }
        }
      }
    }
    return out;
  }

  private Set<MethodRef> transportWaits() {
    if (transportWaits == null) {
      Set<MethodRef> waits = new HashSet<>();
      for (String api : WAITING_INTERFACES) {
        ClassInfo t = index.info(api);
        if (t != null) {
          for (MethodInfo m : t.methods()) {
            if ((m.access & Opcodes.ACC_ABSTRACT) != 0 && m.exceptions.length > 0) {
              waits.add(m.ref);
            }
          }
        }
      }
      transportWaits = waits;
    }
    return transportWaits;
  }
}
