/**
 * The scenarios built into {@code weft-load}, one per protocol client: each a {@link
 * io.weft.load.scenario.Scenario} configured by the run's parameters, rewritten like any user
 * scenario in continuation mode.
 */
package io.weft.load.scenario.builtin;
