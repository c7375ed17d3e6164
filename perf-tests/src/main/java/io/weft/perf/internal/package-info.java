/**
 * Plumbing shared by Weft's benchmarks: not API, may change without notice.
 */
package io.weft.perf.internal;
