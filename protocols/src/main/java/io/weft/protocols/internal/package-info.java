/**
 * Parsing plumbing shared by Weft's protocol clients. Not API: it may change without notice.
 */
package io.weft.protocols.internal;
