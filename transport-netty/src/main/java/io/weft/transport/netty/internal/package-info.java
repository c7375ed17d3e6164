/**
 * Plumbing of the Netty transports (the per-channel state and handler, the event-loop threads).
 * Not API: anything here may change without notice.
 */
package io.weft.transport.netty.internal;
