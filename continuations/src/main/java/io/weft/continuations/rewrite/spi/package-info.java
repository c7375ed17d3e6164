/**
 * The rewriter's SPI for whoever hosts sessions and must change what some JDK calls do inside
 * them: {@link io.weft.continuations.rewrite.spi.CallRedirects}, given to a
 * {@link io.weft.continuations.ContinuationClassLoader}, sends calls in the rewritten classes to
 * methods of the host's own (a simulation's virtual clock and seeded random source).
 */
package io.weft.continuations.rewrite.spi;
