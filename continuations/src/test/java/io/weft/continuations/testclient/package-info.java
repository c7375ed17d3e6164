/**
 * Plain client code for the tests: no annotations, no import of JavaFlow or Weft's
 * continuations, exactly what a protocol author writes. Rewritten at load time only.
 */
package io.weft.continuations.testclient;
