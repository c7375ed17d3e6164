/**
 * The session task {@code HeapPerSession} suspends: alone in its package so that Weft's
 * runner rewrites just this ({@code instrument("io.weft.perf.heap.suspended")}).
 */
package io.weft.perf.heap.suspended;
