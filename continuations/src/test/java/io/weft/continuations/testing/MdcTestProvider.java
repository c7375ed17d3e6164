package io.weft.continuations.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.simple.SimpleServiceProvider;
import org.slf4j.spi.LoggingEventBuilder;
import org.slf4j.spi.MDCAdapter;

/**
 * slf4j-simple with a working MDC (slf4j's BasicMDCAdapter, a thread-local map) instead of its
 * no-op one, so that the suite can show a session's MDC following it across suspends; and a
 * record of every WARN and ERROR event, from Weft and from the libraries under it (JavaFlow,
 * MINA), so that a test can show a run was quiet ({@link #warningsSince}). Events still reach
 * slf4j-simple's output as before. Chosen by the {@code slf4j.provider} system property in the
 * module's surefire configuration.
 */
public final class MdcTestProvider extends SimpleServiceProvider {
  private static final List<String> WARNINGS = new ArrayList<>();

  private final MDCAdapter mdc = new BasicMDCAdapter();
  private volatile ILoggerFactory recording;

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdc;
  }

  @Override
  public ILoggerFactory getLoggerFactory() {
    ILoggerFactory f = recording;
    if (f == null) {
      synchronized (this) {
        if (recording == null) {
          recording = new RecordingFactory(super.getLoggerFactory());
        }
        f = recording;
      }
    }
    return f;
  }

  /** A mark to pass to {@link #warningsSince}: how many WARN and ERROR events there have been. */
  public static int mark() {
    synchronized (WARNINGS) {
      return WARNINGS.size();
    }
  }

  /** The WARN and ERROR events logged since {@code mark}, as "LEVEL logger: message". */
  public static List<String> warningsSince(int mark) {
    synchronized (WARNINGS) {
      return List.copyOf(WARNINGS.subList(mark, WARNINGS.size()));
    }
  }

  private static final class RecordingFactory implements ILoggerFactory {
    private final ILoggerFactory simple;
    private final Map<String, Logger> loggers = new ConcurrentHashMap<>();

    RecordingFactory(ILoggerFactory simple) {
      this.simple = simple;
    }

    @Override
    public Logger getLogger(String name) {
      return loggers.computeIfAbsent(name, n -> new RecordingLogger(n, simple.getLogger(n)));
    }
  }

  private static final class RecordingLogger extends AbstractLogger {
    private static final long serialVersionUID = 1L;
    private final transient Logger out;

    RecordingLogger(String name, Logger out) {
      this.name = name;
      this.out = out;
    }

    @Override
    protected String getFullyQualifiedCallerName() {
      return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(
        Level level, Marker marker, String pattern, Object[] arguments, Throwable throwable) {
      if (level == Level.WARN || level == Level.ERROR) {
        String message = MessageFormatter.basicArrayFormat(pattern, arguments);
        synchronized (WARNINGS) {
          WARNINGS.add(level + " " + name + ": " + message + (throwable == null ? "" : " (" + throwable + ")"));
        }
      }
      LoggingEventBuilder event = out.makeLoggingEventBuilder(level).setCause(throwable);
      if (marker != null) {
        event.addMarker(marker);
      }
      event.log(pattern, arguments == null ? new Object[0] : arguments);
    }

    @Override
    public boolean isTraceEnabled() {
      return out.isTraceEnabled();
    }

    @Override
    public boolean isTraceEnabled(Marker marker) {
      return out.isTraceEnabled(marker);
    }

    @Override
    public boolean isDebugEnabled() {
      return out.isDebugEnabled();
    }

    @Override
    public boolean isDebugEnabled(Marker marker) {
      return out.isDebugEnabled(marker);
    }

    @Override
    public boolean isInfoEnabled() {
      return out.isInfoEnabled();
    }

    @Override
    public boolean isInfoEnabled(Marker marker) {
      return out.isInfoEnabled(marker);
    }

    // WARN and ERROR are recorded whatever slf4j-simple's threshold, so a quiet run is shown
    // quiet at every level a user might set.
    @Override
    public boolean isWarnEnabled() {
      return true;
    }

    @Override
    public boolean isWarnEnabled(Marker marker) {
      return true;
    }

    @Override
    public boolean isErrorEnabled() {
      return true;
    }

    @Override
    public boolean isErrorEnabled(Marker marker) {
      return true;
    }
  }
}
