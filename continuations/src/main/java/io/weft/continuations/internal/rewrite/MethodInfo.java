package io.weft.continuations.internal.rewrite;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.objectweb.asm.Handle;

/** One method of a {@link ClassInfo}: its flags, and what its code calls (when read with code). */
final class MethodInfo {
  final MethodRef ref;
  final String name;
  final int access;
  final String[] exceptions;
  /** Carries JavaFlow's {@code @continuable}. */
  boolean annotated;
  /** The first line that calls {@code Method.invoke} or {@code MethodHandle.invoke*}; 0 if none. */
  int reflectiveLine;
  final List<CallSite> calls = new ArrayList<>();
  final List<LambdaSite> lambdas = new ArrayList<>();
  /**
   * The {@code synchronized} regions whose code can suspend, numbered as {@link MonitorRegions}
   * numbers them: the rewrite makes their monitors session monitors. Set once the marks are known.
   */
  Set<Integer> sessionRegions = Set.of();
  /** A synchronized method whose code can suspend: its monitor becomes a session monitor. */
  boolean sessionMethod;

  MethodInfo(MethodRef ref, int access, String[] exceptions) {
    this.ref = ref;
    this.name = ref.name();
    this.access = access;
    this.exceptions = exceptions;
  }

  boolean isInitializer() {
    return ref.isInitializer();
  }

  /**
   * A lambda or method reference made at {@code line} for functional interface {@code iface},
   * whose body is {@code impl}; {@code factory} is the {@code invokedynamic}'s own name and
   * descriptor (the interface method's name, and what the lambda captures), {@code samType} the
   * interface method's erased type, {@code ordinal} its place among the method's lambda sites,
   * {@code plain} true when it is made by {@code LambdaMetafactory.metafactory} (not
   * {@code altMetafactory}: no serializable lambda, no marker interfaces or bridges).
   */
  record LambdaSite(String iface, MethodRef impl, int line, MethodRef factory, Handle implHandle,
      org.objectweb.asm.Type samType, int ordinal, boolean plain) {}
}
