package io.weft.protocols.fuzz;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The clients' own allocation per received byte, with no Jazzer in the JVM: {@link ReplyFuzzTest}'s
 * property and measure, over a directory of inputs per target, in an ordinary test JVM (the
 * default surefire execution, where no fuzz test runs, so Jazzer's agent and its hooks, which
 * allocate on the measured thread in fuzzing mode, are never loaded). By default over the
 * committed corpus; {@code .ci/fuzz} runs it again over the corpus that fuzzing generated
 * ({@value #CORPUS_PROPERTY} = {@code protocols/.cifuzz-corpus/io.weft.protocols.fuzz.ReplyFuzzTest}),
 * so that the figures it prints for the same inputs as fuzzing mode's say how much of those was
 * the hooks'. A reply over the bound fails the test, as in {@link ReplyFuzzTest}.
 */
class ReplyAllocationsTest {
  /** System property: a directory with one subdirectory of inputs per target. */
  static final String CORPUS_PROPERTY = "weft.fuzz.corpus";
  private static final Path COMMITTED =
      Paths.get("src/test/resources/io/weft/protocols/fuzz/ReplyFuzzTestInputs");

  @Test
  void everyInputOfEveryTargetAllocatesWithinTheBoundWithoutJazzer() throws IOException {
    String property = System.getProperty(CORPUS_PROPERTY);
    Path corpus = property == null || property.isEmpty() ? COMMITTED : Paths.get(property);
    replay(corpus.resolve("redisReply"), ReplyFuzzTest.Worst.redis(), ReplyFuzzTest::redis);
    replay(corpus.resolve("httpResponse"), ReplyFuzzTest.Worst.http(), ReplyFuzzTest::http);
    replay(corpus.resolve("smtpReply"), ReplyFuzzTest.Worst.smtp(), ReplyFuzzTest::smtp);
  }

  private static void replay(Path dir, ReplyFuzzTest.Worst worst, BiConsumer<byte[], ReplyFuzzTest.Worst> target)
      throws IOException {
    if (!Files.isDirectory(dir)) {
      System.out.println("replay " + dir + ": no such directory");
      return;
    }
    List<Path> inputs;
    try (Stream<Path> files = Files.list(dir)) {
      inputs = files.filter(Files::isRegularFile).sorted().collect(Collectors.toList());
    }
    for (Path input : inputs) {
      byte[] bytes = Files.readAllBytes(input);
      // As the fuzz target does: the first run pays the one-time costs, the second is measured.
      target.accept(bytes, null);
      target.accept(bytes, worst);
    }
    String line = worst.toString();
    System.out.println("replay " + inputs.size() + " inputs of " + dir.getFileName() + " without Jazzer: "
        + (line == null ? "no reply of 256 bytes or more" : line));
  }
}
