package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weft.continuations.testclient.shapes.SynchronizedShape;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * What the rewrite does to monitors, read from the {@code Rewrite} tool's output: a region that
 * can suspend takes a session monitor after the thread's monitor, and releases it after each of
 * the region's releases (javac's exception handler's included); a region that cannot suspend, and
 * a method with none, are left as compiled.
 */
class SessionMonitorRewriteTest {
  private static final String MONITORS = "io/weft/continuations/internal/runtime/SessionMonitors";

  @Test
  void onlyRegionsThatCanSuspendGetASessionMonitor() throws Exception {
    Map<String, int[]> counts = counts(SynchronizedShape.class);
    // {monitorenter, monitorexit, SessionMonitors.enter, SessionMonitors.exit}; the engine adds
    // monitorenter/monitorexit of its own to the methods it rewrites, so those are counted only
    // where it rewrites nothing.
    assertEquals(List.of(3, 6), sessionCalls(counts, "body"), "three blocks around reads, each left twice");
    assertEquals(List.of(1, 2), sessionCalls(counts, "exchange"), "a synchronized method: one return, the handler");
    assertEquals(List.of(1, 2), sessionCalls(counts, "staticExchange"), "a static synchronized method");
    assertEquals(List.of(2, 6), sessionCalls(counts, "again"),
        "a synchronized method (two returns, the handler) and its block (the early return, the end, javac's handler)");
    assertEquals("[1, 2, 0, 0]", Arrays.toString(counts.get("count")), "the block with no read stays as compiled");
    assertEquals("[0, 0, 0, 0]", Arrays.toString(counts.get("alone")), "no monitor");
  }

  private static List<Integer> sessionCalls(Map<String, int[]> counts, String method) {
    int[] c = counts.get(method);
    return List.of(c[2], c[3]);
  }

  private static Map<String, int[]> counts(Class<?> type) throws Exception {
    String dir = System.getProperty("weft.rewrittenTestClasses");
    assumeTrue(dir != null && Files.isDirectory(Paths.get(dir)), "no Rewrite tool output (run through Maven)");
    byte[] bytes = Files.readAllBytes(Path.of(dir, type.getName().replace('.', '/') + ".class"));
    Map<String, int[]> out = new TreeMap<>();
    new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9) {
      @Override
      public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] ex) {
        int[] c = new int[4];
        out.put(name, c);
        return new MethodVisitor(Opcodes.ASM9) {
          @Override
          public void visitInsn(int opcode) {
            if (opcode == Opcodes.MONITORENTER) {
              c[0]++;
            } else if (opcode == Opcodes.MONITOREXIT) {
              c[1]++;
            }
          }

          @Override
          public void visitMethodInsn(int op, String owner, String name, String desc, boolean itf) {
            if (owner.equals(MONITORS)) {
              c[name.equals("enter") ? 2 : 3]++;
            }
          }
        };
      }
    }, 0);
    return out;
  }
}
