/**
 * The client of the seed experiment: write a line, read its echo, check it, repeat.
 * Plain blocking-style code against {@link io.weft.transport.Transport} only.
 */
package io.weft.protocols.tester;
