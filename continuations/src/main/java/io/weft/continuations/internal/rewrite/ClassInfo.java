package io.weft.continuations.internal.rewrite;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the analysis knows of one class, as {@link ClassScanner} read it: its place in the
 * hierarchy, its methods (with their code's calls when the class was read with code), and what
 * it refers to (for deciding which loader must define it). Filled once by the scanner, then only
 * read.
 */
final class ClassInfo {
  String name;
  int access;
  String superName;
  String[] interfaces = new String[0];
  /** Carries Weft's {@code Rewritten} mark or JavaFlow's {@code Skip}: rewritten already. */
  boolean rewritten;
  /** Carries Weft's {@code Rewritten} mark: its code is defined as it is, with no redirect applied. */
  boolean marked;
  /** Under the packages being rewritten. */
  boolean inScope;
  /** Its code has a {@code synchronized} block. */
  boolean monitors;
  /** Read with its code (not a JDK, Weft or shared-library class). */
  boolean hasCode;
  String nestHost;
  final List<String> nestMembers = new ArrayList<>();
  /** Every class named in the class: supertypes, calls, fields, type instructions, constants. */
  final Set<String> refs = new HashSet<>();
  /** Access flags of its fields, by name. */
  final Map<String, Integer> fields = new HashMap<>();
  /** Every method its code calls, as named in the call instruction. */
  final List<MethodRef> methodUses = new ArrayList<>();
  /** Every field its code reads or writes. */
  final List<FieldUse> fieldUses = new ArrayList<>();
  /** The constant reflective lookups in its code. */
  final List<Lookup> lookups = new ArrayList<>();
  private final Map<MethodRef, MethodInfo> methods = new LinkedHashMap<>();

  void add(MethodInfo m) {
    methods.put(m.ref, m);
  }

  /** Its own method of {@code ref}'s name and type (whoever {@code ref}'s owner is), or null. */
  MethodInfo method(MethodRef ref) {
    return methods.get(ref.in(name));
  }

  Collection<MethodInfo> methods() {
    return methods.values();
  }

  /** A field read or written: {@code owner.name}. */
  record FieldUse(String owner, String name) {}

  /**
   * A constant reflective lookup: {@code X.class.getMethod("name", ...)} or
   * {@code lookup.findVirtual(X.class, "name", ...)}.
   */
  record Lookup(boolean handle, String owner, String name) {}
}
