package io.weft.continuations.internal.rewrite;

import io.weft.continuations.InstrumentationReport.Problem;
import io.weft.continuations.internal.rewrite.Edge.Kind;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.objectweb.asm.Opcodes;

/**
 * The walk from one session task's {@code run} over every call edge the {@link CallGraph} can
 * resolve, asking each {@link SessionRule} about each method it reaches. A virtual or interface
 * call reaches only objects of classes the task made, so the walk is repeated while it finds more
 * classes made. Each walk's problems and warnings are kept per task.
 */
final class TaskWalk {
  private final ClassIndex index;
  private final CallGraph graph;
  private final WaitPaths waitPaths;
  private final List<SessionRule> rules;
  private final Map<String, Run> done = new HashMap<>();

  TaskWalk(ClassIndex index, CallGraph graph, WaitPaths waitPaths, List<SessionRule> rules) {
    this.index = index;
    this.graph = graph;
    this.waitPaths = waitPaths;
    this.rules = List.copyOf(rules);
  }

  /** True if {@code c} is a concrete {@code SessionTask}. */
  boolean isTask(ClassInfo c) {
    return (c.access & (Opcodes.ACC_INTERFACE | Opcodes.ACC_ABSTRACT)) == 0
        && index.allSupertypes(c).contains(Waits.SESSION_TASK);
  }

  /** The problems task {@code task} (internal name) can reach, one per method. */
  synchronized List<Problem> problems(String task) {
    return walk(task).problems;
  }

  synchronized Set<String> warnings(String task) {
    return walk(task).warnings;
  }

  private Run walk(String task) {
    Run run = done.get(task);
    if (run != null) {
      return run;
    }
    Set<String> made = new HashSet<>();
    made.add(task);
    int before;
    do {
      before = made.size();
      run = new Run(made);
      run.walk(task);
    } while (made.size() > before);
    done.put(task, run);
    return run;
  }

  /** One walk from one task: its path so far, and what it found. */
  final class Run {
    private final Set<String> made;
    private final Map<MethodRef, Edge> cameBy = new HashMap<>();
    private final Map<MethodRef, MethodRef> cameFrom = new HashMap<>();
    private final Set<MethodRef> reported = new HashSet<>();
    final List<Problem> problems = new ArrayList<>();
    final Set<String> warnings = new LinkedHashSet<>();

    Run(Set<String> made) {
      this.made = made;
    }

    void walk(String task) {
      MethodInfo root = index.resolve(Waits.TASK_RUN.in(task));
      if (root == null) {
        return;
      }
      ArrayDeque<MethodInfo> todo = new ArrayDeque<>();
      Set<MethodRef> seen = new HashSet<>();
      todo.add(root);
      seen.add(root.ref);
      while (!todo.isEmpty()) {
        MethodInfo m = todo.poll();
        Reach at = new Reach(this, m, index.info(m.ref.owner()));
        for (SessionRule rule : rules) {
          rule.reached(at);
        }
        for (CallSite call : m.calls) {
          if (call.name().equals("<init>") && index.codeInfo(call.owner()) != null) {
            made.add(call.owner());
          }
        }
        for (Edge e : graph.edges(m)) {
          // A dispatch reaches an override only in an object of a class the task makes (itself
          // included): a subclass no task makes is never a problem of this one.
          if (e.dispatch() && !isMade(e.target().owner())) {
            continue;
          }
          for (SessionRule rule : rules) {
            rule.edge(at, e);
          }
          if (e.kind() == Kind.WAIT) {
            continue;
          }
          MethodInfo target = index.method(e.target());
          if (target != null && seen.add(e.target())) {
            cameFrom.put(e.target(), m.ref);
            cameBy.put(e.target(), e);
            todo.add(target);
          }
        }
      }
    }

    private boolean isMade(String owner) {
      for (String x : made) {
        if (x.equals(owner)) {
          return true;
        }
        ClassInfo c = index.info(x);
        if (c != null && index.allSupertypes(c).contains(owner)) {
          return true;
        }
      }
      return false;
    }

    boolean canWait(MethodRef m) {
      return waitPaths.canWait(m);
    }

    Edge via(MethodRef m) {
      return waitPaths.via(m);
    }

    List<Edge> edges(MethodInfo m) {
      return graph.edges(m);
    }

    void problem(MethodRef at, String message) {
      if (reported.add(at)) {
        problems.add(new Problem(CallGraph.dotted(at.owner()), at.name(), at.desc(), message));
      }
    }

    void warning(String text) {
      warnings.add(text);
    }

    /**
     * {@code Task.run (line 9) → Client.retr (line 20) → Transport.readLine}: the path the walk
     * took to {@code to}, then {@code last} (or the method's own way to a wait), then down to the
     * wait. Bridge methods, which the compiler adds and the user never wrote, are left out.
     */
    String chain(MethodRef to, Edge last) {
      Edge first = last != null ? last : waitPaths.via(to);
      List<String> steps = up(to, first);
      Edge e = first;
      Set<MethodRef> seen = new HashSet<>();
      while (e != null) {
        if (e.kind() == Kind.JDK_TYPE || e.kind() == Kind.REFLECTION || e.kind() == Kind.HANDLE
            || e.kind() == Kind.JDK_CALLER) {
          steps.add(e.via() + (e.kind() == Kind.JDK_CALLER ? " (called by JDK code)" : ""));
        }
        if (e.kind() == Kind.WAIT) {
          steps.add(simple(e.target().owner()) + "." + e.target().name());
          break;
        }
        if (!seen.add(e.target())) {
          break;
        }
        Edge next = waitPaths.via(e.target());
        if (!isBridge(e.target())) {
          steps.add(step(e.target(), next));
        }
        e = next;
      }
      return String.join(" → ", steps);
    }

    /** The path the walk took to {@code to}, then the call {@code call} in it. */
    String chainTo(MethodRef to, CallSite call) {
      List<String> steps = up(to, new Edge(call.line(), call.target(), Kind.OK, null, 0));
      steps.add(simple(call.owner()) + "." + call.name());
      return String.join(" → ", steps);
    }

    /** The walk's path from the task down to {@code to}, which leaves by {@code out}. */
    private List<String> up(MethodRef to, Edge out) {
      List<String> steps = new ArrayList<>();
      MethodRef at = to;
      Edge leaving = out;
      while (at != null) {
        if (!isBridge(at)) {
          steps.add(0, step(at, leaving));
        }
        leaving = cameBy.get(at);
        at = cameFrom.get(at);
      }
      return steps;
    }

    private boolean isBridge(MethodRef m) {
      MethodInfo mi = index.method(m);
      return mi != null && (mi.access & Opcodes.ACC_BRIDGE) != 0;
    }

    List<Problem> problems() {
      return problems;
    }
  }

  private static String step(MethodRef m, Edge out) {
    return simple(m.owner()) + "." + m.name() + (out != null && out.line() > 0 ? " (line " + out.line() + ")" : "");
  }

  static String simple(String internal) {
    return internal.substring(internal.lastIndexOf('/') + 1);
  }

  static String packageOf(String internal) {
    int slash = internal.lastIndexOf('/');
    return slash < 0 ? "" : internal.substring(0, slash).replace('/', '.');
  }
}
