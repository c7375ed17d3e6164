package io.weft.continuations.rewrite.spi;

import io.weft.continuations.internal.rewrite.RedirectRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Calls that a {@link io.weft.continuations.ContinuationClassLoader} sends elsewhere in every
 * class it rewrites, on top of its own rewrite: {@code System.nanoTime()} to a virtual clock,
 * {@code new Random()} to {@code new Random(seed())}. Only the classes in the loader's packages
 * are changed; a library outside them makes its calls as compiled. Names are in the JVM's internal
 * form ({@code java/lang/System}), descriptors as in a class file ({@code ()J}). Immutable.
 *
 * <ul>
 *   <li>A static call goes to a static method with the same descriptor.
 *   <li>An instance call goes to a static method that takes the receiver first, then the
 *       arguments; a call naming a subclass that does not declare the method is taken too.
 *   <li>A constructor call gets one argument more, the value of a static method with no
 *       arguments, and goes to the constructor that takes it (a subclass's {@code super()} too).
 * </ul>
 *
 * <p>Every target must be a class of a package of Weft's own (it comes from the parent loader,
 * unchanged, and the analysis does not walk its code). A target that suspends (marked and
 * rewritten as Weft's own waits are) makes its callers suspendable, and the chains that cannot
 * suspend through it are refused, as for any wait. A constructor's supplier must not suspend.
 *
 * <p>A class that the {@code Rewrite} tool rewrote before (it carries Weft's mark, so the loader
 * defines it as it is) and that makes one of the redirected calls is refused before any session
 * runs, naming the call and the chain from the task: its calls would go where they were compiled
 * to.
 */
public final class CallRedirects {
  /**
   * One redirected method call.
   *
   * @param owner the class named in the call, e.g. {@code java/lang/System}
   * @param name the method's name, e.g. {@code nanoTime}
   * @param descriptor the method's descriptor, e.g. {@code ()J}
   * @param isStatic true for a static method
   * @param toOwner the class of the static method called instead
   * @param toName that method's name
   */
  public record Call(String owner, String name, String descriptor, boolean isStatic, String toOwner,
      String toName) {
  }

  /**
   * One constructor that gets an argument more.
   *
   * @param owner the class made, e.g. {@code java/util/Random}
   * @param descriptor the constructor called in the code, e.g. {@code ()V}
   * @param supplierOwner the class of the static method that gives the argument
   * @param supplierName that method's name
   * @param supplierDescriptor that method's descriptor, e.g. {@code ()J}
   */
  public record Constructor(String owner, String descriptor, String supplierOwner, String supplierName,
      String supplierDescriptor) {
  }

  private final String host;
  private final List<Call> calls;
  private final List<Constructor> constructors;

  private CallRedirects(Builder b) {
    this.host = b.host;
    this.calls = List.copyOf(b.calls);
    this.constructors = List.copyOf(b.constructors);
  }

  /**
   * Starts a set of redirects.
   *
   * @param host who redirects, as a refusal names it (e.g. {@code "the simulation"})
   * @return a builder with no redirects
   */
  public static Builder builder(String host) {
    return new Builder(Objects.requireNonNull(host, "host"));
  }

  /**
   * Who redirects, as a refusal names it.
   *
   * @return the host's name
   */
  public String host() {
    return host;
  }

  /**
   * The redirected method calls, in the order added.
   *
   * @return the calls
   */
  public List<Call> calls() {
    return calls;
  }

  /**
   * The constructors that get an argument more, in the order added.
   *
   * @return the constructors
   */
  public List<Constructor> constructors() {
    return constructors;
  }

  @Override
  public String toString() {
    return "CallRedirects[" + host + ", " + calls.size() + " calls, " + constructors.size() + " constructors]";
  }

  /** Adds redirects; {@link #build()} checks them. */
  public static final class Builder {
    private final String host;
    private final List<Call> calls = new ArrayList<>();
    private final List<Constructor> constructors = new ArrayList<>();

    private Builder(String host) {
      this.host = host;
    }

    /**
     * Sends calls of the static method {@code owner.name descriptor} to {@code toOwner.toName},
     * which takes the same arguments and returns the same type.
     *
     * @param owner the class of the method
     * @param name the method's name
     * @param descriptor the method's descriptor
     * @param toOwner the class of the method called instead
     * @param toName its name
     * @return this builder
     */
    public Builder staticCall(String owner, String name, String descriptor, String toOwner, String toName) {
      calls.add(new Call(Objects.requireNonNull(owner, "owner"), Objects.requireNonNull(name, "name"),
          Objects.requireNonNull(descriptor, "descriptor"), true, Objects.requireNonNull(toOwner, "toOwner"),
          Objects.requireNonNull(toName, "toName")));
      return this;
    }

    /**
     * Sends calls of the instance method {@code owner.name descriptor} to the static
     * {@code toOwner.toName}, which takes the receiver first, then the same arguments.
     *
     * @param owner the class of the method
     * @param name the method's name
     * @param descriptor the method's descriptor
     * @param toOwner the class of the static method called instead
     * @param toName its name
     * @return this builder
     */
    public Builder instanceCall(String owner, String name, String descriptor, String toOwner, String toName) {
      calls.add(new Call(Objects.requireNonNull(owner, "owner"), Objects.requireNonNull(name, "name"),
          Objects.requireNonNull(descriptor, "descriptor"), false, Objects.requireNonNull(toOwner, "toOwner"),
          Objects.requireNonNull(toName, "toName")));
      return this;
    }

    /**
     * Gives calls of the constructor {@code owner descriptor} one argument more, the value of the
     * static {@code supplierOwner.supplierName supplierDescriptor} called just before.
     *
     * @param owner the class made
     * @param descriptor the constructor called in the code
     * @param supplierOwner the class of the supplier
     * @param supplierName the supplier's name
     * @param supplierDescriptor the supplier's descriptor: no arguments, one value
     * @return this builder
     */
    public Builder constructorArgument(String owner, String descriptor, String supplierOwner, String supplierName,
        String supplierDescriptor) {
      constructors.add(new Constructor(Objects.requireNonNull(owner, "owner"),
          Objects.requireNonNull(descriptor, "descriptor"), Objects.requireNonNull(supplierOwner, "supplierOwner"),
          Objects.requireNonNull(supplierName, "supplierName"),
          Objects.requireNonNull(supplierDescriptor, "supplierDescriptor")));
      return this;
    }

    /**
     * The redirects added.
     *
     * @return an immutable set of redirects
     * @throws IllegalArgumentException if a target cannot replace its call: a descriptor that does
     *     not fit, a constructor given as a method, a supplier that takes arguments or gives none
     */
    public CallRedirects build() {
      CallRedirects built = new CallRedirects(this);
      RedirectRules.check(built);
      return built;
    }
  }
}
