package io.weft.load;

import io.weft.load.internal.InVmEcho;
import io.weft.load.internal.LoadRun;
import io.weft.load.internal.LoadSpec;
import io.weft.load.scenario.Scenario;
import io.weft.load.scenario.Workload;
import io.weft.load.scenario.builtin.HttpScenario;
import io.weft.load.scenario.builtin.LineScenario;
import io.weft.load.scenario.builtin.PgScenario;
import io.weft.load.scenario.builtin.RedisScenario;
import io.weft.load.scenario.builtin.SmtpScenario;
import java.util.ArrayList;
import java.lang.reflect.InvocationTargetException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** The scenario subcommands of {@code weft-load}. */
final class ScenarioCommands {
  private ScenarioCommands() {}

  @Command(name = "redis", mixinStandardHelpOptions = true, description = "Redis commands, optionally pipelined.")
  static final class Redis implements Callable<Integer> {
    @ParentCommand WeftLoad parent;
    @Mixin RunOptions run;

    @Option(names = {"-c", "--command"}, paramLabel = "COMMAND",
        description = "A command of each iteration, e.g. 'SET k v'; repeat for a list. Default: PING.")
    List<String> commands = new ArrayList<>();

    @Option(names = {"-P", "--pipeline"}, defaultValue = "1",
        description = "Send the command list this many times over in one flush. Default: ${DEFAULT-VALUE} (no pipelining).")
    int pipeline;

    @Override
    public Integer call() throws Exception {
      LoadSpec spec = run.spec(RedisScenario.class.getName(), "redis", true);
      // Redis queues 512 by default (tcp-backlog 511, where net.core.somaxconn allows it: 128 before
      // Linux 5.4, a queue of 129): the default connect window starts at 128 and may grow to 256.
      spec.deepBacklog = true;
      if (!commands.isEmpty()) {
        spec.params.put("commands", String.join(";", commands));
      }
      spec.params.put("pipeline", Integer.toString(pipeline));
      return LoadRun.execute(spec, parent.out());
    }
  }

  @Command(name = "pg", mixinStandardHelpOptions = true,
      description = "PostgreSQL: a list (or a file) of statements per iteration; refused statements count by SQLSTATE.")
  static final class Pg implements Callable<Integer> {
    @ParentCommand WeftLoad parent;
    @Mixin RunOptions run;

    @Option(names = {"-U", "--user"}, defaultValue = "postgres", description = "Default: ${DEFAULT-VALUE}.")
    String user;

    @Option(names = "--password", description = "The password (default: the PGPASSWORD environment variable).")
    String password;

    @Option(names = "--database", description = "Default: the user name.")
    String database;

    @Option(names = {"-c", "--query"}, paramLabel = "SQL",
        description = "A statement of each iteration; repeat for a list. Default: SELECT 1.")
    List<String> queries = new ArrayList<>();

    @Option(names = {"-f", "--file"}, paramLabel = "FILE",
        description = "Statements of each iteration, one per line ('--' comments); instead of --query.")
    String file;

    @Option(names = "--simple", description = "Use the simple query protocol (several statements per line) instead of the extended one.")
    boolean simple;

    @Option(names = "--tls", defaultValue = "disable", description = "disable, prefer or require. Default: ${DEFAULT-VALUE}.")
    String tls;

    @Option(names = "--ca-file", paramLabel = "PEM", description = "Trust this CA (PEM) instead of the JDK's trust store.")
    String caFile;

    @Option(names = "--server-name", description = "The host name the server's certificate must carry, if not the target's.")
    String serverName;

    @Override
    public Integer call() throws Exception {
      if (file != null && !queries.isEmpty()) {
        throw new IllegalArgumentException("--query and --file: choose one");
      }
      LoadSpec spec = run.spec(PgScenario.class.getName(), "pg", true);
      spec.params.put("user", user);
      String pw = password != null ? password : System.getenv("PGPASSWORD");
      if (pw != null) {
        spec.params.put("password", pw);
      }
      if (database != null) {
        spec.params.put("database", database);
      }
      if (!queries.isEmpty()) {
        spec.params.put("queries", String.join("\n", queries));
      }
      if (file != null) {
        spec.params.put("file", file);
      }
      spec.params.put("simple", Boolean.toString(simple));
      spec.params.put("tls", tls);
      if (caFile != null) {
        spec.params.put("caFile", caFile);
      }
      if (serverName != null) {
        spec.params.put("serverName", serverName);
      }
      return LoadRun.execute(spec, parent.out());
    }
  }

  @Command(name = "http", mixinStandardHelpOptions = true, description = "HTTP/1.1 requests.")
  static final class Http implements Callable<Integer> {
    @ParentCommand WeftLoad parent;
    @Mixin RunOptions run;

    @Option(names = {"-X", "--method"}, defaultValue = "GET", description = "Default: ${DEFAULT-VALUE}.")
    String method;

    @Option(names = "--path", defaultValue = "/", description = "Request target. Default: ${DEFAULT-VALUE}.")
    String path;

    @Option(names = {"-H", "--header"}, paramLabel = "'NAME: VALUE'", description = "A request header; repeatable.")
    List<String> headers = new ArrayList<>();

    @Option(names = "--host", description = "Host header (default: the target's host).")
    String host;

    @Option(names = "--body", description = "Request body (UTF-8).")
    String body;

    @Option(names = "--no-keep-alive", description = "Connection: close, and a new connection per request.")
    boolean noKeepAlive;

    @Override
    public Integer call() throws Exception {
      LoadSpec spec = run.spec(HttpScenario.class.getName(), "http", true);
      // The default connect window (to 48): an HTTP server may be a Java one with a backlog of 50
      // (JDK HttpServer, Jetty); --connect-window-max 256 for nginx's 511.
      spec.params.put("method", method);
      spec.params.put("path", path);
      spec.params.put("host", host != null ? host : run.targets.get(0).replaceFirst(":[0-9]+$", ""));
      spec.params.put("keepAlive", Boolean.toString(!noKeepAlive));
      if (!headers.isEmpty()) {
        spec.params.put("headers", String.join("\n", headers));
      }
      if (body != null) {
        spec.params.put("body", body);
      }
      return LoadRun.execute(spec, parent.out());
    }
  }

  @Command(name = "smtp", mixinStandardHelpOptions = true, description = "SMTP: one message per iteration.")
  static final class Smtp implements Callable<Integer> {
    @ParentCommand WeftLoad parent;
    @Mixin RunOptions run;

    @Option(names = "--size", defaultValue = "1024", description = "Message size in bytes. Default: ${DEFAULT-VALUE}.")
    int size;

    @Option(names = "--from", defaultValue = "load@weft.test", description = "Default: ${DEFAULT-VALUE}.")
    String from;

    @Option(names = "--to", defaultValue = "sink@weft.test", description = "Default: ${DEFAULT-VALUE}.")
    String to;

    @Override
    public Integer call() throws Exception {
      LoadSpec spec = run.spec(SmtpScenario.class.getName(), "smtp", true);
      spec.params.put("size", Integer.toString(size));
      spec.params.put("from", from);
      spec.params.put("to", to);
      return LoadRun.execute(spec, parent.out());
    }
  }

  @Command(name = "line", mixinStandardHelpOptions = true,
      description = "The line tester: write a line, read its echo, check it.")
  static final class Line implements Callable<Integer> {
    @ParentCommand WeftLoad parent;
    @Mixin RunOptions run;

    @Option(names = "--lines", defaultValue = "1", description = "Lines per iteration. Default: ${DEFAULT-VALUE}.")
    int lines;

    @Option(names = "--in-vm", description = "Start an echo server in this JVM on MINA's in-VM pipe and load it (no --target).")
    boolean inVm;

    @Override
    public Integer call() throws Exception {
      LoadSpec spec = run.spec(LineScenario.class.getName(), "line", !inVm);
      spec.params.put("lines", Integer.toString(lines));
      if (!inVm) {
        return LoadRun.execute(spec, parent.out());
      }
      if (!spec.addresses.isEmpty()) {
        throw new IllegalArgumentException("--in-vm and --target: choose one");
      }
      try (InVmEcho echo = new InVmEcho()) {
        spec.addresses.add(echo.address());
        spec.vmPipe = true;
        return LoadRun.execute(spec, parent.out());
      }
    }
  }

  @Command(name = "run", mixinStandardHelpOptions = true,
      description = "Your own scenario: a class on the class path implementing io.weft.load.scenario.Scenario.")
  static final class Run implements Callable<Integer> {
    @ParentCommand WeftLoad parent;
    @Mixin RunOptions run;

    @Parameters(index = "0", paramLabel = "CLASS", description = "The scenario class.")
    String scenario;

    @Option(names = {"-p", "--param"}, paramLabel = "KEY=VALUE", description = "Passed to the scenario's Map constructor; repeatable.")
    List<String> params = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
      Map<String, String> parsed = new LinkedHashMap<>();
      for (String p : params) {
        int eq = p.indexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException("bad --param " + p + ": expected KEY=VALUE");
        }
        parsed.put(p.substring(0, eq), p.substring(eq + 1));
      }
      LoadSpec spec = run.spec(scenario, scenario, true, declaredWorkload(scenario, parsed));
      spec.params.putAll(parsed);
      return LoadRun.execute(spec, parent.out());
    }
  }

  /**
   * The workload {@code className} declares, read from one instance made in this class loader
   * for the purpose (it never runs an iteration), or null if it declares none.
   */
  static Workload declaredWorkload(String className, Map<String, String> params) {
    Class<?> type;
    try {
      type = Class.forName(className, false, ScenarioCommands.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException("scenario class not found: " + className, e);
    }
    if (!Scenario.class.isAssignableFrom(type)) {
      throw new IllegalArgumentException(className + " does not implement " + Scenario.class.getName());
    }
    try {
      if (type.getMethod("workload").getDeclaringClass() == Scenario.class) {
        return null;
      }
      Object made;
      try {
        made = type.getConstructor(Map.class).newInstance(Map.copyOf(params));
      } catch (NoSuchMethodException e) {
        made = type.getConstructor().newInstance();
      }
      return ((Scenario) made).workload();
    } catch (InvocationTargetException e) {
      throw new IllegalArgumentException(className + " failed to declare its workload: " + e.getCause(), e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(className + " needs a public constructor taking Map<String, String> or none", e);
    }
  }
}
