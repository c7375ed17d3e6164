package io.weft.continuations.internal.rewrite;

import java.util.HashSet;
import java.util.Set;
import org.objectweb.asm.Opcodes;

/**
 * Which in-scope classes an instrumenting loader must define itself (rewritten), and which it
 * leaves to the parent: the rewritten ones (a suspendable method, or a redirected call), then
 * every class that must join them. Exceptions, records and plain data need neither, so the caller
 * sees the parent's classes.
 */
final class LoaderSplit {
  private final ClassIndex index;

  LoaderSplit(ClassIndex index) {
    this.index = index;
  }

  /**
   * @param changed the in-scope classes the rewrite changes
   * @return those, and the classes that must be defined by the same loader
   */
  Set<String> definedByChild(Set<String> changed) {
    Set<String> out = new HashSet<>(changed);
    boolean grew = true;
    while (grew) {
      grew = false;
      for (ClassInfo c : index.inScope()) {
        if (!out.contains(c.name) && mustJoin(c, out)) {
          out.add(c.name);
          grew = true;
        }
      }
    }
    return out;
  }

  /**
   * Must {@code c} be defined by the loader that defines {@code child}? Yes if it refers to one
   * of them (it would link to the parent's copy); if it is a nest mate of one (private access
   * between them needs one loader); if one of them uses it and it is not public (a class and the
   * same package's classes of another loader are in different run-time packages, and a class
   * cannot be reached there); or if one of them extends it in a way that needs the same run-time
   * package: a super call to a member that is not public, or an override of a package-private
   * method. Any other use of a member that is not public goes through an accessor
   * ({@link CrossLoaderAccess}), so that exceptions and value types stay the caller's.
   */
  private boolean mustJoin(ClassInfo c, Set<String> child) {
    for (String ref : c.refs) {
      if (child.contains(ref)) {
        return true;
      }
    }
    if (c.nestHost != null && child.contains(c.nestHost)) {
      return true;
    }
    for (String member : c.nestMembers) {
      if (child.contains(member)) {
        return true;
      }
    }
    for (String name : child) {
      ClassInfo user = index.inScope(name);
      if (user == null || !user.refs.contains(c.name)) {
        continue;
      }
      if ((c.access & Opcodes.ACC_PUBLIC) == 0) {
        return true;
      }
      if (index.allSupertypes(user).contains(c.name) && extendsAcrossPackages(user, c)) {
        return true;
      }
    }
    return false;
  }

  /** Does {@code sub} call a non-public member of {@code sup} through super, or override a package-private one? */
  private static boolean extendsAcrossPackages(ClassInfo sub, ClassInfo sup) {
    for (MethodInfo m : sub.methods()) {
      for (CallSite call : m.calls) {
        if (call.opcode() == Opcodes.INVOKESPECIAL && call.owner().equals(sup.name)) {
          MethodInfo used = sup.method(call.target());
          if (used != null && (used.access & Opcodes.ACC_PUBLIC) == 0
              && (!used.isInitializer() || m.name.equals("<init>"))) {
            return true;
          }
        }
      }
      MethodInfo overridden = sup.method(m.ref);
      if (overridden != null && isPackagePrivate(overridden.access)
          && (overridden.access & Opcodes.ACC_STATIC) == 0 && !overridden.isInitializer()) {
        return true;
      }
    }
    return false;
  }

  /**
   * True if code of {@code from}, defined by the child loader, must reach the member an
   * instruction names ({@code opcode} on {@code owner.name}, of {@code desc}) through an
   * accessor: the member belongs to an in-scope class the parent defines, and it is
   * package-private, or protected and {@code from} is not a subclass of its class.
   */
  boolean needsAccessor(String from, int opcode, String owner, String name, String desc, Set<String> child) {
    boolean field = opcode == Opcodes.GETFIELD || opcode == Opcodes.PUTFIELD || opcode == Opcodes.GETSTATIC
        || opcode == Opcodes.PUTSTATIC;
    ClassInfo declaring = null;
    int access = 0;
    if (field) {
      for (ClassInfo c = index.info(owner); c != null; c = c.superName == null ? null : index.info(c.superName)) {
        Integer a = c.fields.get(name);
        if (a != null) {
          declaring = c;
          access = a;
          break;
        }
      }
    } else {
      MethodInfo m = index.resolve(MethodRef.of(owner, name, desc));
      if (m != null) {
        declaring = index.info(m.ref.owner());
        access = m.access;
      }
    }
    if (declaring == null || !declaring.inScope || child.contains(declaring.name)
        || (access & (Opcodes.ACC_PUBLIC | Opcodes.ACC_PRIVATE)) != 0) {
      return false;
    }
    if ((access & Opcodes.ACC_PROTECTED) != 0) {
      ClassInfo user = index.info(from);
      return user == null || !index.allSupertypes(user).contains(declaring.name);
    }
    return true;
  }

  private static boolean isPackagePrivate(int access) {
    return (access & (Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED | Opcodes.ACC_PRIVATE)) == 0;
  }
}
