/**
 * Plumbing of the load driver, not API: recording, the arrival dispatcher, the run, reports.
 * Classes here are loaded once, by the application class loader, and shared with the virtual
 * users that the continuation class loader rewrites; so this package must never be instrumented.
 */
package io.weft.load.internal;
