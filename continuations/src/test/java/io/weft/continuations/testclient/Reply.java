package io.weft.continuations.testclient;

/** A result record: the caller must be able to use it as its own type. */
public record Reply(int index, String line) {}
