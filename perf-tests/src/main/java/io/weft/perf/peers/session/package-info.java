/**
 * The peers benchmark's Redis session, kept alone in its package so that Weft's runner
 * rewrites just this package (with {@code io.weft.protocols}) in CONTINUATIONS mode.
 */
package io.weft.perf.peers.session;
