/**
 * Session tasks of the continuation microbenchmarks. The benchmarks name this package to the
 * runner's {@code instrument(...)}: everything here is rewritten by the continuation class
 * loader, so keep in it only code that runs inside a session.
 */
package io.weft.perf.micro.session;
