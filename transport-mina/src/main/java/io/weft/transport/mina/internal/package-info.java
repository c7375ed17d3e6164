/**
 * Plumbing shared by Weft's MINA transports (the blocking {@code MinaTransport} and the
 * continuation-suspending one). <strong>Not API</strong>: anything here may change or go away
 * in any release without notice. Protocol code must not use it. Left out of the
 * published javadoc and of doclint's check.
 */
package io.weft.transport.mina.internal;
