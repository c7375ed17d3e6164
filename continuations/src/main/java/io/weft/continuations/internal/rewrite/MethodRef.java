package io.weft.continuations.internal.rewrite;

import java.util.Objects;
import org.objectweb.asm.Type;

/**
 * A method by owner (internal class name), name and method type: the one key the rewriter uses for
 * a method, whether it is declared, called, marked or reported. Two references are equal when all
 * three are; {@link #in(String)} asks the same question of another class (a supertype, an
 * override). The hash is computed once: the analysis looks these up in its fixpoints.
 */
public final class MethodRef {
  private final String owner;
  private final String name;
  private final Type type;
  private final int hash;

  private MethodRef(String owner, String name, Type type) {
    this.owner = Objects.requireNonNull(owner, "owner");
    this.name = Objects.requireNonNull(name, "name");
    this.type = type;
    this.hash = (owner.hashCode() * 31 + name.hashCode()) * 31 + type.getDescriptor().hashCode();
  }

  /**
   * @param owner the internal name of the class, such as {@code io/weft/transport/Transport}
   * @param name the method's name
   * @param type the method's type, as {@link Type#getMethodType(String)} gives it
   */
  public static MethodRef of(String owner, String name, Type type) {
    if (type.getSort() != Type.METHOD) {
      throw new IllegalArgumentException("not a method type: " + type);
    }
    return new MethodRef(owner, name, type);
  }

  /** The method {@code name} with descriptor {@code descriptor} of class {@code owner}. */
  public static MethodRef of(String owner, String name, String descriptor) {
    return of(owner, name, Type.getMethodType(descriptor));
  }

  public String owner() {
    return owner;
  }

  public String name() {
    return name;
  }

  public Type type() {
    return type;
  }

  /** The method descriptor, such as {@code (Ljava/lang/String;)V}. */
  public String desc() {
    return type.getDescriptor();
  }

  /** The method of the same name and type in {@code otherOwner}. */
  public MethodRef in(String otherOwner) {
    return otherOwner.equals(owner) ? this : new MethodRef(otherOwner, name, type);
  }

  /** True for the same name and type, whatever the owner. */
  public boolean sameSignature(MethodRef other) {
    return name.equals(other.name) && type.equals(other.type);
  }

  /** True for a constructor or a class initializer, which can never suspend. */
  public boolean isInitializer() {
    return name.equals("<init>") || name.equals("<clinit>");
  }

  /** Name and descriptor, as the JVM and {@code Rewritten#methods()} write a method in its class. */
  public String signature() {
    return name + type.getDescriptor();
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof MethodRef)) {
      return false;
    }
    MethodRef other = (MethodRef) o;
    return hash == other.hash && owner.equals(other.owner) && name.equals(other.name) && type.equals(other.type);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  /** {@code io.weft.transport.Transport.readLine(I)Ljava/lang/String;} */
  @Override
  public String toString() {
    return owner.replace('/', '.') + "." + signature();
  }
}
