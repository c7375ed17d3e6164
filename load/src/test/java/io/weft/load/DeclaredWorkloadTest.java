package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.load.testscenario.DeclaredWorkloadScenario;
import io.weft.testsupport.EchoServer;
import java.io.File;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A scenario declares its profile and thresholds in Java; flags on the command line override them. */
class DeclaredWorkloadTest {
  private static final String CLASS = DeclaredWorkloadScenario.class.getName();
  @TempDir Path dir;

  private Runs run(EchoServer echo, String name, String... more) {
    String[] base = {"run", CLASS, "-t", "127.0.0.1:" + ((InetSocketAddress) echo.address()).getPort(),
        "--mode", "continuations:1", "-q"};
    String[] args = new String[base.length + more.length];
    System.arraycopy(base, 0, args, 0, base.length);
    System.arraycopy(more, 0, args, base.length, more.length);
    return Runs.run(new File(dir.toFile(), name), args);
  }

  @Test
  void theClosedProfileAndThresholdsDeclaredInCodeRun() throws Exception {
    try (EchoServer echo = EchoServer.tcp()) {
      Runs r = run(echo, "closed");
      assertEquals(0, r.exit, r::toString);
      assertEquals(12, r.summary().at("/operations/say/count").asLong(), r::toString);
      assertEquals(3, r.summary().at("/users").asLong(), r::toString);
      assertTrue(r.output.contains("threshold PASSED say:count>=12"), r::toString);
    }
  }

  @Test
  void flagsOverrideTheDeclaredProfileSettingBySetting() throws Exception {
    try (EchoServer echo = EchoServer.tcp()) {
      // -n replaces the iterations; the users and the declared threshold stay, and now fail.
      Runs r = run(echo, "fewer", "-n", "2");
      assertEquals(1, r.exit, r::toString);
      assertEquals(6, r.summary().at("/operations/say/count").asLong(), r::toString);
      assertTrue(r.output.contains("threshold FAILED say:count>=12 (actual 6)"), r::toString);
      // --threshold replaces the declared thresholds.
      Runs t = run(echo, "own-threshold", "-n", "2", "--threshold", "say:count>=6");
      assertEquals(0, t.exit, t::toString);
      assertTrue(!t.output.contains("say:count>=12"), t::toString);
    }
  }

  @Test
  void theOpenProfileDeclaredInCodeRunsItsArrivals() throws Exception {
    try (EchoServer echo = EchoServer.tcp()) {
      Runs r = run(echo, "open", "-p", "model=open");
      assertEquals(0, r.exit, r::toString);
      assertEquals("open", r.summary().at("/model").asText(), r::toString);
      assertEquals(40, r.summary().at("/operations/say/count").asLong(), r::toString);
      assertEquals(2, r.summary().at("/users").asLong(), r::toString);
    }
  }

  @Test
  void aFlagOfTheOtherModelReplacesTheDeclaredModel() throws Exception {
    try (EchoServer echo = EchoServer.tcp()) {
      Runs r = run(echo, "to-open", "--rate", "30", "-d", "1s", "--max-sessions", "2");
      assertEquals(0, r.exit, r::toString);
      assertEquals("open", r.summary().at("/model").asText(), r::toString);
      assertEquals(30, r.summary().at("/operations/say/count").asLong(), r::toString);
      assertEquals(2, r.summary().at("/users").asLong(), r::toString);
      // The declared thresholds hold whatever the model.
      assertTrue(r.output.contains("threshold PASSED say:count>=12 (actual 30)"), r::toString);
    }
  }
}
