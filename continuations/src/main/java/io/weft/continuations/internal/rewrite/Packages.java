package io.weft.continuations.internal.rewrite;

import java.util.List;

/**
 * The packages the rewriter leaves alone, in one place: the JDK's, Weft's own, and the libraries
 * Weft's runtime shares with the rewritten code. Their classes always come unchanged from the
 * parent loader, and the analysis reads them for their types but never walks into their code.
 * Names are in the JVM's internal form ({@code java/lang/Object}).
 */
public final class Packages {
  private Packages() {}

  /** Package prefixes of the JDK. */
  static final List<String> JDK = List.of("java/", "javax/", "jdk/", "sun/", "com/sun/");

  /** Weft's own packages; exact packages, since a user's subpackage of one may be rewritten. */
  static final List<String> WEFT = List.of(
      "io/weft/transport/", "io/weft/transport/spi/",
      "io/weft/continuations/", "io/weft/continuations/internal/runtime/",
      "io/weft/continuations/internal/rewrite/", "io/weft/continuations/spi/",
      "io/weft/continuations/runtime/spi/", "io/weft/continuations/rewrite/spi/",
      "io/weft/simulation/");

  /** Package prefixes of the libraries the runtime shares with the rewritten code. */
  static final List<String> LIBRARIES = List.of(
      "org/apache/commons/javaflow/", "net/tascalate/", "org/objectweb/asm/", "org/slf4j/");

  /** True for a class of the JDK. */
  public static boolean isJdk(String internalName) {
    return startsWithAny(internalName, JDK);
  }

  /** True for a class of Weft's own packages (not of a user's subpackage of them). */
  static boolean isWeft(String internalName) {
    for (String p : WEFT) {
      if (internalName.startsWith(p) && internalName.indexOf('/', p.length()) < 0) {
        return true;
      }
    }
    return false;
  }

  /** Weft's runtime, JavaFlow and the libraries they share: their code is never walked. */
  static boolean isRuntime(String internalName) {
    return isWeft(internalName) || isLibrary(internalName);
  }

  /** True for a class of JavaFlow, ASM or slf4j. */
  static boolean isLibrary(String internalName) {
    return startsWithAny(internalName, LIBRARIES);
  }

  private static boolean startsWithAny(String name, List<String> prefixes) {
    for (String p : prefixes) {
      if (name.startsWith(p)) {
        return true;
      }
    }
    return false;
  }
}
