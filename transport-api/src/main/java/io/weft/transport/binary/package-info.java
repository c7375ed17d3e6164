/**
 * Helpers for binary protocols over {@link io.weft.transport.Transport}: big-endian numbers,
 * length-prefixed frames into reused buffers, NUL-terminated strings, each with a limit. In
 * continuation mode this package is always rewritten along with the caller's packages.
 */
package io.weft.transport.binary;
