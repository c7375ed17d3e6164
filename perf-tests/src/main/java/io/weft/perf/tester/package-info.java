/**
 * Session tasks for the benchmarks, kept apart so Weft's runner can instrument this package
 * alone in CONTINUATIONS mode.
 */
package io.weft.perf.tester;
