package io.weft.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.tools.Agent;
import io.weft.samples.agent.AgentPing;
import io.weft.testsupport.ChildJvm;
import io.weft.testsupport.RedisServerProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the agent sample in a JVM of its own, as its javadoc says to, with and without the agent. */
class AgentPingTest {
  private static final Duration CHILD_LIMIT = Duration.ofSeconds(120);

  @TempDir Path temp;

  @Test
  void runsEverySessionWhenTheAgentRewritesTheSampleAndTheProtocolJar() throws Exception {
    try (RedisServerProcess redis = Redis.start()) {
      String agent = "-javaagent:" + agentJar() + "=io.weft.samples.agent,io.weft.protocols";
      ChildJvm.Result child = java(List.of(agent), Integer.toString(redis.port()), "200");
      assertEquals(0, child.exit(), child.toString());
      assertTrue(child.out().contains("CONTINUATIONS(1): 200 sessions, 200 succeeded, 0 failed"), child.toString());
      assertTrue(child.out().contains("PONGs: 600 of 600"), child.toString());
    }
  }

  @Test
  void withoutTheAgentTheRunIsRefusedNamingTheClassAndTheFix() throws Exception {
    try (RedisServerProcess redis = Redis.start()) {
      ChildJvm.Result child = java(List.of(), Integer.toString(redis.port()), "10");
      assertEquals(2, child.exit(), child.toString());
      assertTrue(child.out().contains("refused: io.weft.samples.agent.PingTask was not rewritten for continuations"),
          child.toString());
      assertTrue(child.out().contains("-javaagent:"), child.toString());
    }
  }

  /** The continuations jar, as the reactor built it (or one made from its classes directory). */
  private Path agentJar() throws IOException {
    return ChildJvm.agentJar(Agent.class, temp);
  }

  private ChildJvm.Result java(List<String> jvmArgs, String... args) throws IOException, InterruptedException {
    List<String> all = new ArrayList<>();
    all.add("127.0.0.1");
    all.addAll(List.of(args));
    return ChildJvm.run(temp, CHILD_LIMIT, jvmArgs, AgentPing.class.getName(), all.toArray(new String[0]));
  }
}
