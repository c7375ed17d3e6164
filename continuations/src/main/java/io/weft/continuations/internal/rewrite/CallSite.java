package io.weft.continuations.internal.rewrite;

/**
 * A call instruction in a method's code, as the analysis sees it (after the call-site redirects).
 *
 * @param opcode the {@code invoke*} opcode
 * @param target the method as the instruction names it
 * @param line the source line, 0 if unknown
 * @param monitorLine the line of the enclosing {@code synchronized} block, 0 if none
 */
public record CallSite(int opcode, MethodRef target, int line, int monitorLine) {
  public String owner() {
    return target.owner();
  }

  public String name() {
    return target.name();
  }
}
