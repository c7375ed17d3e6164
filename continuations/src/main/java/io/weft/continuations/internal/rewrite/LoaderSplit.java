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
   * between them needs one loader); or if one of them uses it, or a member of it, that is not
   * public: a class and the same package's classes of another loader are in different run-time
   * packages, which package-private and protected access cannot cross.
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
      for (ClassInfo.FieldUse f : user.fieldUses) {
        Integer access = f.owner().equals(c.name) ? c.fields.get(f.name()) : null;
        if (access != null && (access & Opcodes.ACC_PUBLIC) == 0) {
          return true;
        }
      }
      for (MethodRef m : user.methodUses) {
        MethodInfo used = m.owner().equals(c.name) ? c.method(m) : null;
        if (used != null && (used.access & Opcodes.ACC_PUBLIC) == 0) {
          return true;
        }
      }
    }
    return false;
  }
}
