/**
 * The client of the original 2008 experiment: write a line, read its echo, check it, repeat.
 * Plain blocking-style code against {@link io.weft.transport.Transport} only.
 */
package io.weft.protocols.tester;
