package io.weft.load.scenario.builtin;

import io.weft.load.record.OpRecorder;
import io.weft.load.scenario.Scenario;
import io.weft.protocols.redis.RedisClient;
import io.weft.protocols.redis.RedisErrorException;
import io.weft.transport.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Redis: each iteration sends the command list once ({@code commands}, separated by {@code ;},
 * arguments by spaces; default {@code PING}). Without pipelining ({@code pipeline} 1) each
 * command is one call, timed on its own; with {@code pipeline} D an iteration sends the list D
 * times over in one flush and then reads every reply, and each command is timed from that send
 * to the last reply, as {@code redis-benchmark -P D} does. Operations are named by the command
 * ({@code GET}); an error reply counts as an error of its command.
 */
public final class RedisScenario implements Scenario {
  private final String[][] commands;
  private final String[] names;
  private final int pipeline;
  private RedisClient redis;

  public RedisScenario(Map<String, String> params) {
    List<String[]> list = new ArrayList<>();
    for (String c : Params.string(params, "commands", "PING").split(";")) {
      if (!c.isBlank()) {
        list.add(c.trim().split("\\s+"));
      }
    }
    if (list.isEmpty()) {
      throw new IllegalArgumentException("commands is empty");
    }
    this.commands = list.toArray(new String[0][]);
    this.names = new String[commands.length];
    for (int i = 0; i < names.length; i++) {
      names[i] = commands[i][0].toUpperCase(Locale.ROOT);
    }
    this.pipeline = Params.integer(params, "pipeline", 1, 1);
  }

  @Override
  public void connected(Transport transport, OpRecorder ops) {
    redis = new RedisClient(transport);
  }

  @Override
  public void iteration(OpRecorder ops) throws Exception {
    if (pipeline == 1) {
      for (int i = 0; i < commands.length; i++) {
        OpRecorder.Timer t = ops.start(names[i]);
        try {
          redis.call(commands[i]);
          t.stop();
        } catch (RedisErrorException e) {
          // The server said no on a healthy connection: an error of the command, not of the link.
          ops.error(names[i], e);
        }
      }
      return;
    }
    List<String[]> batch = new ArrayList<>(commands.length * pipeline);
    for (int k = 0; k < pipeline; k++) {
      for (String[] command : commands) {
        batch.add(command);
      }
    }
    long start = ops.start();
    List<Object> replies = redis.pipeline(batch);
    for (int i = 0; i < replies.size(); i++) {
      Object reply = replies.get(i);
      String name = names[i % names.length];
      if (reply instanceof RedisErrorException) {
        ops.error(name, (RedisErrorException) reply);
      } else {
        ops.stop(name, start);
      }
    }
  }
}
