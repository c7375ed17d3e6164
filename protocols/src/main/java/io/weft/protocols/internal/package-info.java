/**
 * Parsing plumbing shared by Weft's protocol clients. Not API: it may change without
 * notice. Left out of the published javadoc and of doclint's check.
 */
package io.weft.protocols.internal;
