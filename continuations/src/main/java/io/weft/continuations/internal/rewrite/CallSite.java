package io.weft.continuations.internal.rewrite;

import java.util.List;

/**
 * A call instruction in a method's code, as the analysis sees it (after the call-site redirects).
 *
 * @param opcode the {@code invoke*} opcode
 * @param target the method as the instruction names it
 * @param line the source line, 0 if unknown
 * @param monitorLine the line of the outermost enclosing {@code synchronized} block, 0 if none
 * @param monitors the enclosing {@code synchronized} regions, outermost first, numbered as
 *     {@link MonitorRegions} numbers them
 */
public record CallSite(int opcode, MethodRef target, int line, int monitorLine, List<Integer> monitors) {
  public CallSite(int opcode, MethodRef target, int line, int monitorLine) {
    this(opcode, target, line, monitorLine, List.of());
  }

  public String owner() {
    return target.owner();
  }

  public String name() {
    return target.name();
  }
}
