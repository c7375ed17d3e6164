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
 */
public interface SuspendingConnector extends Connector {}
