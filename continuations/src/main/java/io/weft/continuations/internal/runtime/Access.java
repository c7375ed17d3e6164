package io.weft.continuations.internal.runtime;

import java.lang.invoke.CallSite;
import java.lang.invoke.ConstantCallSite;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The bootstrap of the continuation loader's cross-loader accessors. A class the loader defines
 * (rewritten) and a class of the same package that it leaves to the parent (an exception, a
 * value type) are in different run-time packages, so a package-private member of the parent's
 * class is out of the rewritten class's reach. The rewrite turns each such access into an
 * {@code invokedynamic} that lands here once: the member is found through a lookup with private
 * access to its class ({@code MethodHandles.privateLookupIn}, which needs no {@code --add-opens}
 * for classes in unnamed modules), and the call site is bound to it for good.
 */
public final class Access {
  public static final String INTERNAL_NAME = "io/weft/continuations/internal/runtime/Access";
  public static final String DESCRIPTOR = "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;"
      + "Ljava/lang/invoke/MethodType;Ljava/lang/Class;I)Ljava/lang/invoke/CallSite;";
  /** What the call site does: the JVM opcode it replaces, or {@link #NEW} for a constructor. */
  public static final int NEW = -1;
  private static final int GETFIELD = 180;
  private static final int PUTFIELD = 181;
  private static final int GETSTATIC = 178;
  private static final int PUTSTATIC = 179;
  private static final int INVOKEVIRTUAL = 182;
  private static final int INVOKESTATIC = 184;
  private static final int INVOKEINTERFACE = 185;

  private Access() {}

  /**
   * @param caller the rewritten class's own lookup
   * @param name the member's name ({@code <init>} for a constructor)
   * @param type the call site's type: the receiver first for an instance member
   * @param owner the member's class
   * @param kind the opcode replaced, or {@link #NEW}
   */
  public static CallSite bootstrap(MethodHandles.Lookup caller, String name, MethodType type, Class<?> owner,
      int kind) throws ReflectiveOperationException {
    MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(owner, caller);
    MethodHandle target;
    switch (kind) {
      case NEW:
        target = lookup.findConstructor(owner, type.changeReturnType(void.class));
        break;
      case GETFIELD:
        target = lookup.findGetter(owner, name, type.returnType());
        break;
      case PUTFIELD:
        target = lookup.findSetter(owner, name, type.parameterType(1));
        break;
      case GETSTATIC:
        target = lookup.findStaticGetter(owner, name, type.returnType());
        break;
      case PUTSTATIC:
        target = lookup.findStaticSetter(owner, name, type.parameterType(0));
        break;
      case INVOKESTATIC:
        target = lookup.findStatic(owner, name, type);
        break;
      case INVOKEVIRTUAL:
      case INVOKEINTERFACE:
        target = lookup.findVirtual(owner, name, type.dropParameterTypes(0, 1));
        break;
      default:
        throw new IllegalArgumentException("no accessor of kind " + kind + " for " + owner.getName() + "." + name);
    }
    return new ConstantCallSite(target.asType(type));
  }
}
