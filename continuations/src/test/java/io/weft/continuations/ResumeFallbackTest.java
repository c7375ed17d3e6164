package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.continuations.testing.ResumeFallbackChild;
import io.weft.testsupport.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.javaflow.core.Stack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;

/**
 * The check of a restored call where Weft cannot read JavaFlow's reference stack: JavaFlow's api
 * jar on the module path, a named module that exports its packages but opens none, and Weft on the
 * class path without {@code --add-opens}. The loader then writes the check into the engine's restore
 * code of each checked call, made at the resume, instead of where the caller captures itself. In a
 * child JVM so started, the shapes of {@link ResumeCheckTest} end as they do there: every session
 * that suspended through an object that swallowed the suspend (a JDK proxy, a class of the same name
 * from another loader, an unrewritten subclass that suspends in a method it inherits and calls on
 * itself) fails with {@code NotInstrumentedError} from that check, having entered its body once and
 * never returned from it (no code runs twice, none is skipped); three rewritten classes in turn
 * through one call site resume each into itself.
 */
class ResumeFallbackTest {
  private static final Duration LIMIT = Duration.ofMinutes(3);

  @TempDir
  Path temp;

  @Test
  void whereJavaFlowsStackCannotBeReadTheCheckMadeAtTheResumeCatchesWhatTheCaptureCheckCatches() throws Exception {
    String modules = ChildJvm.codeSource(Stack.class) + java.io.File.pathSeparator + ChildJvm.codeSource(Logger.class);
    ChildJvm.Result child = ChildJvm.run(temp, LIMIT, List.of("--module-path", modules, "--add-modules",
        "net.tascalate.javaflow.api"), ResumeFallbackChild.class.getName());
    assertEquals(0, child.exit(), child.toString());
    List<String> expected = new ArrayList<>();
    expected.add("checks at capture: false");
    for (int w = 1; w <= 2; w++) {
      String all = " 200 of 200 refused naming ";
      String rest = ", some by the check of a restored call, 200 entered once and never returned, 0 open";
      expected.add("proxy continuations(" + w + "):" + all + "a JDK proxy" + rest);
      expected.add("CachedSiteShape proxy continuations(" + w + "):" + all + "a JDK proxy" + rest);
      expected.add("CachedSiteShape otherLoader continuations(" + w + "):" + all
          + "io.weft.continuations.testclient.shapes.CachedSiteShape$First" + rest);
      expected.add("CachedSiteShape sameObject continuations(" + w + "):" + all
          + "io.weft.continuations.testclient.shapes.CachedSiteShape$SelfCalling" + rest);
      expected.add("CachedSiteShape megamorphic continuations(" + w + "): 200 of 200 right, entered and returned once,"
          + " 0 open");
    }
    List<String> lines = child.out().lines().filter(l -> l.startsWith("checks at") || l.contains("continuations("))
        .toList();
    assertEquals(expected, lines, child.toString());
  }
}
