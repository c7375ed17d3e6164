package io.weft.continuations.spi;

import io.weft.transport.Connector;

/**
 * A {@link Connector} whose connect and transports suspend the running continuation (through
 * {@link Suspend#await}) instead of blocking the thread. {@code CONTINUATIONS} mode accepts only
 * these, unless told to allow a blocking connector: a blocking one would stall a worker thread
 * and with it every session on that worker.
 *
 * <p>An implementation and its transport classes must be rewritten by the JavaFlow build step
 * (their waiting methods carry {@code @continuable}); the runner checks that the connector class
 * was rewritten and refuses it otherwise.
 *
 * <p>A transport's {@code close()} must be safe from any thread at once, count only the first
 * call and never wait (as {@link io.weft.transport.spi.ConnectionTransport#close()} is): a
 * cancelled run closes each session's transport on the cancelling thread while the session,
 * woken by the cancel before any close ({@link SessionCancelledException} out of its wait),
 * closes it in its own frame on a worker; the two calls routinely meet.
 */
public interface SuspendingConnector extends Connector {}
