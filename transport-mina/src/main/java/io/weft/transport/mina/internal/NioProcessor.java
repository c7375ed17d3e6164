package io.weft.transport.mina.internal;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.URL;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.filterchain.DefaultIoFilterChain;
import org.apache.mina.core.filterchain.IoFilter;
import org.apache.mina.core.future.ConnectFuture;
import org.apache.mina.core.future.DefaultConnectFuture;
import org.apache.mina.core.polling.AbstractPollingIoProcessor;
import org.apache.mina.core.service.AbstractIoService;
import org.apache.mina.core.service.IoProcessor;
import org.apache.mina.core.service.IoService;
import org.apache.mina.core.session.AbstractIoSession;
import org.apache.mina.core.session.AttributeKey;
import org.apache.mina.core.session.IoSessionDataStructureFactory;
import org.apache.mina.core.session.IoSessionInitializer;
import org.apache.mina.transport.socket.SocketSessionConfig;
import org.apache.mina.transport.socket.nio.NioSession;
import org.apache.mina.transport.socket.nio.NioSocketConnector;
import org.apache.mina.util.ExceptionMonitor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MINA's NIO processor, with a socket's read or write failure (a reset, a broken pipe) handed to
 * the session's {@link SessionState} instead of to MINA's own handling, which logs one ERROR
 * line per failed session ("Exception occured while trying to read", "Error '...' while trying
 * to write") before it closes the session. Weft reports the failure to the session's reader or
 * writer, typed as a plain socket would type it, so it logs it only at DEBUG.
 *
 * <p>A failed read answers -1: MINA then closes the session as for a peer's close, and the
 * state, holding the failure, reports the failure rather than end of stream. A failed write
 * closes the session and answers 0 bytes written: MINA then fails the session's pending writes
 * as it removes it, and the state reports the failure to the flush that waits on them.
 *
 * <p>Made by MINA's {@code SimpleIoProcessorPool} through its public {@code (Executor)}
 * constructor; public for that reason only. It has MINA's class name because MINA names a
 * processor's thread after its class: its threads stay {@code NioProcessor-N}, the name
 * {@link IoThreads} and thread counts know.
 */
public final class NioProcessor extends org.apache.mina.transport.socket.nio.NioProcessor {
  private static final Logger LOG = LoggerFactory.getLogger(NioProcessor.class);

  /**
   * The mina-core version whose {@code AbstractPollingIoProcessor} (its loop: {@code process},
   * {@code read}, the select and the walk of the selected sessions) and
   * {@code NioSocketConnector}/{@code NioSocketSession} were checked (their bytecode) for the
   * three places where this processor takes over part of MINA's loop:
   * <ul>
   *   <li>{@link #readHere}: a plain session read from {@link #isReadable}, before MINA's read,
   *       which relies on {@code isReadable} being asked only by {@code process(session)}, right
   *       before {@code read(session)}, and on what that read does with the outcome;
   *   <li>{@link #select(long)}: the ready sessions put into a list this processor keeps
   *       ({@link #selectedSessions}), which relies on how MINA's loop walks and removes them;
   *   <li>{@link #connectHere}: a connect made and finished on this processor, which repeats what
   *       MINA's connector and its adding of a session do; and {@link #connectFromElsewhere}, the
   *       same handed over by another thread, which relies on MINA's private
   *       {@code startupProcessor} (start the loop's thread if it has ended, wake the selector) and
   *       on its loop asking {@link #isSelectorEmpty} only after it has marked itself ended.
   * </ul>
   * With any other mina-core loaded (a user's build may pin another version), each of the three
   * is left to MINA (see {@link #CHECKED_MINA}). On a MINA upgrade: re-check the three against
   * the new version's classes, then change this constant with the pom's {@code mina.version}
   * (a test fails until both agree).
   */
  static final String CHECKED_MINA_VERSION = "2.2.10";

  /** Where a mina-core jar built by Maven says its version. */
  private static final String MINA_POM_PROPERTIES = "META-INF/maven/org.apache.mina/mina-core/pom.properties";

  /** The version of the mina-core that loaded MINA's processor class; null if it does not say. */
  static final String LOADED_MINA_VERSION = loadedMinaVersion();

  /**
   * True if the loaded mina-core is {@link #CHECKED_MINA_VERSION}: only then does a processor
   * read plain sessions itself ({@link #readHere}), select into its own list ({@link #select(long)})
   * and connect on its loop ({@link #connectHere}); otherwise each is MINA's own (MINA's read,
   * which still hands a plain session's bytes straight to its state, as before {@code readHere};
   * MINA's select and selected-key set; MINA's connector), logged once at WARN.
   */
  static final boolean CHECKED_MINA = checked(LOADED_MINA_VERSION);

  static {
    if (!CHECKED_MINA) {
      LOG.warn("mina-core {} is loaded; Weft's MINA processor was checked against mina-core {}: it leaves its "
          + "reads of plain sessions (readHere), its select (select) and its connects on the processor "
          + "(connectHere) to MINA's own code, which is slower", LOADED_MINA_VERSION, CHECKED_MINA_VERSION);
    }
  }

  /**
   * For tests: a processor made while this is not null takes it as the loaded mina-core's version
   * (read once, by the constructor). Null but in tests.
   */
  static volatile String assumedMinaVersion;

  /** The connect of a session whose channel this processor's selector watches; null once it finished. */
  private static final AttributeKey CONNECTING = new AttributeKey(NioProcessor.class, "connecting");

  /**
   * MINA's socket session class's constructor {@code (IoService, IoProcessor, SocketChannel)}:
   * public, of a package-private class, so reached by reflection (MINA is in an unnamed or
   * automatic module, whose packages are open). Null if this MINA has none: connects then all go
   * through MINA's connector.
   */
  private static final Constructor<?> SOCKET_SESSION = socketSessionConstructor();

  /**
   * MINA's private {@code AbstractPollingIoProcessor.startupProcessor()}: starts the processor's
   * loop on its executor if it is not running (it ends when it has no session left), and wakes its
   * selector; what MINA's own {@code add(session)} calls. Reached through a private lookup (MINA's
   * packages are open: an unnamed or automatic module). Null if this MINA has none: connects made
   * off the processors then all go through MINA's connector (see {@link #canConnectFromElsewhere}).
   */
  private static final MethodHandle START_LOOP = startLoopHandle();

  /** The processors made on this thread while a connector builds its pool (see {@link #collecting}). */
  private static final ThreadLocal<List<NioProcessor>> MADE_HERE = new ThreadLocal<>();

  /**
   * How many handed-over connects one turn of the loop starts before it looks at its channels
   * again: a first wave of thousands, each a socket and a connect system call, would otherwise
   * keep every session of the processor waiting for all of them.
   */
  static final int CONNECTS_PER_TURN = 256;

  private final Executor executor;

  /**
   * Connects handed over by other threads ({@link #connectFromElsewhere}), in the order they came,
   * for this processor's loop to start (see {@link #select(long)}).
   */
  private final ConcurrentLinkedQueue<LoopConnect> handedOver = new ConcurrentLinkedQueue<>();
  /**
   * True from the hand-over that woke the loop (the first since the loop last looked at
   * {@link #handedOver}) until the loop looks again: the hand-overs in between need no wake-up of
   * their own. Set again by the loop itself when it leaves connects for its next turn.
   */
  private final AtomicBoolean handOverWoke = new AtomicBoolean();

  /** {@link #CHECKED_MINA}, or as {@link #assumedMinaVersion} says where a test set it. */
  private final boolean minaChecked;

  /**
   * The sessions the last select found ready, in the order the selector reported them: filled by
   * {@link #select(long)}, walked by MINA through {@link #selectedSessions()}, both on this
   * processor's thread only.
   */
  private final ArrayList<NioSession> ready = new ArrayList<>();
  private final Consumer<SelectionKey> addReady = key -> ready.add((NioSession) key.attachment());
  private final ReadySessions readySessions = new ReadySessions();
  /** Whether the last select filled {@link #ready} (else MINA's own select filled its set). */
  private boolean listing;

  public NioProcessor(Executor executor) {
    super(executor);
    this.executor = executor;
    String assumed = assumedMinaVersion;
    this.minaChecked = assumed == null ? CHECKED_MINA : checked(assumed);
    List<NioProcessor> made = MADE_HERE.get();
    if (made != null) {
      made.add(this);
    }
  }

  /**
   * Runs {@code make} (a connector's making of its processor pool, which constructs every
   * processor at once, on this thread) and adds each processor made meanwhile to {@code made}, in
   * the order made: so a connector knows its processors, which MINA's pool does not give out.
   *
   * @return what {@code make} returned
   */
  public static <T> T collecting(List<NioProcessor> made, Supplier<T> make) {
    List<NioProcessor> previous = MADE_HERE.get();
    MADE_HERE.set(made);
    try {
      return make.get();
    } finally {
      if (previous == null) {
        MADE_HERE.remove();
      } else {
        MADE_HERE.set(previous);
      }
    }
  }

  /** True if {@code version} is the mina-core version this processor was checked against. */
  static boolean checked(String version) {
    return CHECKED_MINA_VERSION.equals(version);
  }

  /**
   * The version in the {@code pom.properties} of the jar (or folder) that MINA's processor class
   * was loaded from, else its package's {@code Implementation-Version} (mina-core 2.2.10's manifest
   * has none), else null.
   */
  static String loadedMinaVersion() {
    Class<?> c = AbstractPollingIoProcessor.class;
    try {
      String classFile = c.getName().replace('.', '/') + ".class";
      URL url = c.getResource("/" + classFile);
      ClassLoader loader = c.getClassLoader();
      if (url != null && loader != null && url.toString().endsWith(classFile)) {
        String root = url.toString().substring(0, url.toString().length() - classFile.length());
        // The one of MINA's own jar: another jar on the class path may carry a copy.
        for (Enumeration<URL> all = loader.getResources(MINA_POM_PROPERTIES); all.hasMoreElements();) {
          URL props = all.nextElement();
          if (props.toString().equals(root + MINA_POM_PROPERTIES)) {
            Properties p = new Properties();
            try (InputStream in = props.openStream()) {
              p.load(in);
            }
            String version = p.getProperty("version");
            if (version != null) {
              return version.trim();
            }
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("the loaded mina-core's pom.properties could not be read", e);
    }
    Package p = c.getPackage();
    return p == null ? null : p.getImplementationVersion();
  }

  /**
   * MINA's select, with the ready sessions handed to a list this processor keeps instead of to
   * the selector's selected-key set, where the selector is the JDK's epoll or poll selector (see
   * {@link #reportsOncePerKey}); MINA's own select otherwise. MINA's own select fills that set (a
   * {@code HashSet}: a node allocated for each ready key) and its loop removes each key from it
   * once processed (a hash removal per key); on a loaded loop that removal was the largest single
   * frame of MINA's own code in a profile of connect-per-session Redis clients (2026-11-28, perf10
   * note), where Netty's event loop walks an array. The epoll and poll selectors report each ready
   * key at most once per select, with all its ready operations, to {@code select(Consumer, long)}:
   * the same keys, ready operations and order as the set, and the same count returned, which
   * MINA's spin check reads. Others need not (the kqueue selector reports a key once per ready
   * operation, each time with only that operation), so they keep MINA's set, which adds the
   * operations up. A key whose processing failed (MINA's loop then reports the exception and
   * selects again) is reported again while its channel stays ready, as these selectors' readiness
   * is level-triggered. Checked at every select, so also after MINA replaces its selector. MINA's
   * own select on a mina-core this was not checked against (see {@link #CHECKED_MINA}).
   *
   * <p>First, the connects other threads handed over (see {@link #connectFromElsewhere}) are
   * started, on this thread, before the selector is asked: a connect that ends at once is seen by
   * this same select. When more are left than one turn starts, the select does not wait.
   */
  @Override
  protected int select(long timeout) throws Exception {
    boolean more = startHandedOver();
    listing = minaChecked && reportsOncePerKey(selector);
    if (more) {
      // Connects left for the next turn: this select does not wait, and MINA's loop is told that
      // it returns early on purpose (else ten such turns in a row with nothing ready look to it
      // like the epoll spin it works around by replacing the selector).
      wakeupCalled.set(true);
      return selectNow();
    }
    if (!listing) {
      return super.select(timeout);
    }
    selectorLock.readLock().lock();
    try {
      ready.clear();
      return selector.select(addReady, timeout);
    } finally {
      selectorLock.readLock().unlock();
    }
  }

  /** As {@link #select(long)}, without waiting: into this processor's list or MINA's selected-key set. */
  private int selectNow() throws IOException {
    selectorLock.readLock().lock();
    try {
      if (!listing) {
        return selector.selectNow();
      }
      ready.clear();
      return selector.selectNow(addReady);
    } finally {
      selectorLock.readLock().unlock();
    }
  }

  /** As {@link #select(long)} (which starts the connects handed over first), with no time limit. */
  @Override
  protected int select() throws Exception {
    return select(0);
  }

  /**
   * The sessions the last {@link #select(long)} found ready: from this processor's list (whose
   * {@code remove} does nothing) or, where that select was MINA's own, from the selector's set.
   */
  @Override
  protected Iterator<NioSession> selectedSessions() {
    if (!listing) {
      return super.selectedSessions();
    }
    readySessions.next = 0;
    return readySessions;
  }

  /**
   * True if {@code selector} is the JDK's epoll or poll selector, which reports each ready key at
   * most once per select, with all its ready operations, to {@code select(Consumer, long)}.
   */
  static boolean reportsOncePerKey(Selector selector) {
    String name = selector.getClass().getName();
    return name.equals("sun.nio.ch.EPollSelectorImpl") || name.equals("sun.nio.ch.PollSelectorImpl");
  }

  /**
   * For tests: whether the last select used this processor's list, and how many keys the
   * selector's own selected-key set holds (0 on this processor's thread when it uses the list).
   */
  boolean listing() {
    return listing;
  }

  /** See {@link #listing()}. */
  int selectedKeysHeld() {
    return selector.selectedKeys().size();
  }

  /** The walk of {@link #ready}, one reused instance; the list is emptied once walked. */
  private final class ReadySessions implements Iterator<NioSession> {
    int next;

    @Override
    public boolean hasNext() {
      if (next < ready.size()) {
        return true;
      }
      ready.clear();
      next = 0;
      return false;
    }

    @Override
    public NioSession next() {
      if (next >= ready.size()) {
        throw new NoSuchElementException();
      }
      return ready.get(next++);
    }

    @Override
    public void remove() {
      // MINA removes each processed key from the selected-key set; there is none here.
    }
  }

  private static Constructor<?> socketSessionConstructor() {
    try {
      Constructor<?> c = Class.forName("org.apache.mina.transport.socket.nio.NioSocketSession")
          .getConstructor(IoService.class, IoProcessor.class, SocketChannel.class);
      c.setAccessible(true);
      return c;
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.debug("MINA's NioSocketSession cannot be made here; every connect goes through MINA's connector", e);
      return null;
    }
  }

  private static MethodHandle startLoopHandle() {
    try {
      return MethodHandles.privateLookupIn(AbstractPollingIoProcessor.class, MethodHandles.lookup())
          .findVirtual(AbstractPollingIoProcessor.class, "startupProcessor", MethodType.methodType(void.class));
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.debug("MINA's processor loop cannot be started here; connects made off the processors go through"
          + " MINA's connector", e);
      return null;
    }
  }

  /**
   * True if this processor was made with {@code executor} (its connector's threads): so a
   * connector knows its own processors.
   */
  public boolean runsOn(Executor executor) {
    return this.executor == executor;
  }

  /**
   * True if {@link #connectHere} can make sessions with this MINA: its socket session class has
   * the constructor used, and it is the version this was checked against (see
   * {@link #CHECKED_MINA}).
   */
  public boolean canConnectHere() {
    return minaChecked && SOCKET_SESSION != null;
  }

  /**
   * True if {@link #connectFromElsewhere} can hand connects to this processor's loop: it can
   * {@link #connectHere}, and MINA's start of its loop was found.
   */
  public boolean canConnectFromElsewhere() {
    return canConnectHere() && START_LOOP != null;
  }

  /**
   * Connects to {@code remote} from this processor's own thread, inside its loop (the caller
   * checks: {@link IoThreads#runningLoop}), with this processor's selector watching the connect
   * instead of MINA's connector thread: MINA's {@code NioSocketConnector} issues the connect on
   * the calling thread, registers the channel with its own selector, and its own thread finishes
   * the connect and hands the session to a processor, which registers it again; a sleep and a
   * wake-up of that thread, and two of the processor's, per session. Here: the channel is
   * registered once, with this processor's selector, for {@code OP_CONNECT}; when the selector
   * reports it, this processor (see {@link #isReadable}) finishes the connect, makes MINA's
   * session live and reports it opened, in the same turn of its loop, on this thread.
   *
   * <p>The session is MINA's own {@code NioSocketSession} of {@code service} (its handler, its
   * configuration, its filter chain builder, its listeners and statistics), served by this
   * processor. What MINA's connector would do is done here in the same order: the channel opened
   * non-blocking with the receive buffer size the configuration asks for, the session's
   * attribute map and write queue made by the service's factory, {@code initializer} run on the
   * connected session before any event, the filter chain built, and the session reported
   * created (its connect future completed by MINA's tail filter as it opens). A connect that
   * fails (refused, unreachable) completes the future with the channel's exception, as MINA's
   * connector does; one cancelled (see {@link LoopConnect#cancel}) is closed by this processor.
   *
   * @return the connect's future, completed on this thread
   */
  public ConnectFuture connectHere(NioSocketConnector service, SocketAddress remote, IoSessionInitializer<ConnectFuture> initializer) {
    LoopConnect future = new LoopConnect(service, remote, initializer);
    start(future);
    return future;
  }

  /**
   * As {@link #connectHere}, from any other thread (a scheduler's worker starting the first
   * sessions of a run, a caller's own thread): the connect is handed to this processor's loop,
   * which starts it at its next select, in the order handed over, and finishes it there as
   * {@link #connectHere} does; MINA's connector thread takes no part. The future is returned at
   * once and completed on this processor's thread. One wake-up of the loop per batch: only the
   * first connect handed over since the loop last looked wakes it (MINA's start of the loop, which
   * also starts its thread if it had ended for want of sessions); the loop starts at most
   * {@value #CONNECTS_PER_TURN} of them per turn. A cancel before the loop has started the connect
   * means it is never made: no socket is opened. A connect handed over to a processor being
   * disposed fails with a {@link ClosedChannelException}, as do those still queued when it ends, so
   * that none is left waiting.
   *
   * @return the connect's future, completed on this processor's thread (or on this one, failed, if
   *     the processor is being disposed)
   */
  public ConnectFuture connectFromElsewhere(NioSocketConnector service, SocketAddress remote,
      IoSessionInitializer<ConnectFuture> initializer) {
    LoopConnect future = new LoopConnect(service, remote, initializer);
    handedOver.add(future);
    Hooks h = hooks;
    if (h != null) {
      h.handedOver(this, remote);
    }
    if (isDisposing()) {
      // The loop may have ended already, or end without looking again: failed here.
      failHandedOver();
    } else if (!handOverWoke.get() && handOverWoke.compareAndSet(false, true)) {
      startLoop();
    }
    return future;
  }

  /** MINA's start of this processor's loop (see {@link #START_LOOP}), failing the handed-over connects if it cannot. */
  private void startLoop() {
    try {
      START_LOOP.invokeExact((AbstractPollingIoProcessor) this);
    } catch (RuntimeException e) {
      // The connector's threads are gone (a rejected execution): no loop will start them.
      LOG.debug("processor {}: its loop could not be started", this, e);
      failHandedOver();
    } catch (Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /**
   * Starts, on this processor's thread, the connects handed over since the loop last looked, at
   * most {@value #CONNECTS_PER_TURN}; returns true if more are left for the next turn. A connect
   * handed over while the processor is being disposed is failed instead.
   */
  private boolean startHandedOver() {
    if (!handOverWoke.get()) {
      return false;
    }
    // Cleared before the queue is read: a connect handed over from now on wakes the loop again,
    // or is in what is read below.
    handOverWoke.set(false);
    int taken = 0;
    for (; taken < CONNECTS_PER_TURN; taken++) {
      LoopConnect connect = handedOver.poll();
      if (connect == null) {
        break;
      }
      if (isDisposing()) {
        connect.failClosed();
      } else {
        start(connect);
      }
    }
    Hooks h = hooks;
    if (h != null) {
      h.startedHandedOver(this, taken);
    }
    if (taken < CONNECTS_PER_TURN || handedOver.isEmpty()) {
      return false;
    }
    // Left for the next turn, which this select does not wait for: no hand-over need wake it.
    handOverWoke.set(true);
    return true;
  }

  /** Fails every connect handed over and not yet started: the processor is being disposed. */
  private void failHandedOver() {
    for (LoopConnect connect = handedOver.poll(); connect != null; connect = handedOver.poll()) {
      connect.failClosed();
    }
  }

  /**
   * Starts {@code future}'s connect on this processor's own thread: see {@link #connectHere}.
   * Nothing is opened for one cancelled before this.
   */
  private void start(LoopConnect future) {
    if (!future.waiting()) {
      return;
    }
    SocketChannel channel = null;
    try {
      channel = SocketChannel.open();
      SocketSessionConfig config = future.service.getSessionConfig();
      if (config.getReceiveBufferSize() > 0) {
        channel.socket().setReceiveBufferSize(config.getReceiveBufferSize());
      }
      channel.configureBlocking(false);
      NioSession session = (NioSession) SOCKET_SESSION.newInstance(future.service, this, channel);
      IoSessionDataStructureFactory structures = future.service.getSessionDataStructureFactory();
      ((AbstractIoSession) session).setAttributeMap(structures.getAttributeMap(session));
      ((AbstractIoSession) session).setWriteRequestQueue(structures.getWriteRequestQueue(session));
      if (!future.start(session)) {
        // Cancelled since the look above: never connected.
        closeQuietly(channel);
        return;
      }
      boolean connected = channel.connect(future.remote);
      // Registered now, for reading as MINA registers every session; then watched for the
      // connect's end instead until it has ended. This is the loop's own thread, between two of
      // its selects: the next select sees both.
      super.init(session);
      if (connected) {
        if (future.claim()) {
          opened(session, future);
        } else {
          // Cancelled from another thread meanwhile: closed here, as finishConnect does.
          channel.keyFor(selector).cancel();
          closeQuietly(channel);
        }
      } else {
        session.setAttribute(CONNECTING, future);
        channel.keyFor(selector).interestOps(SelectionKey.OP_CONNECT);
        Hooks h = hooks;
        if (h != null) {
          h.watching(session, future);
        }
      }
    } catch (Exception e) {
      // As MINA's connector: the channel closed, the failure in the future.
      if (channel != null) {
        try {
          channel.close();
        } catch (IOException closing) {
          e.addSuppressed(closing);
        }
      }
      future.setException(e);
    }
  }

  /**
   * A connect this processor makes ({@link #connectHere}, {@link #connectFromElsewhere}). Its
   * state, one of:
   * <ul>
   *   <li>{@code WAITING}: handed over, not started (nothing opened yet); to CONNECTING when the
   *       processor starts it, to CANCELLED by a cancel;
   *   <li>{@code CONNECTING}: its session made and its channel connecting, watched by this
   *       processor's selector; to TAKEN when the processor claims it as it ends, to CANCELLED by
   *       a cancel;
   *   <li>{@code TAKEN} and {@code CANCELLED}: final.
   * </ul>
   * So its session is claimed once, by whichever comes first: this processor, as the selector
   * reports the connect ended, to make the session live; or a cancel (the connect's wait ran out,
   * or its session ended first), so that it never is. A cancel while WAITING leaves nothing to
   * close: the processor, when it comes to the connect, opens nothing. The channel is only ever
   * closed on the processor's own thread, never by the cancelling thread under the processor (that
   * could cancel the channel's key between the processor's look at it and its use: a
   * {@code CancelledKeyException} out of the processor's loop, which MINA reports and then sleeps a
   * second for, every session of the processor waiting; or a session made live with a cancelled
   * key, which MINA would never end). A cancel that takes a CONNECTING session closes it as MINA's
   * connector closes a cancelled connect's ({@code closeNow}): the close goes to the processor,
   * which closes the channel at the end of its loop's current or next turn (its socket leaves
   * SYN_SENT), the session never made live. A cancel that comes after the processor's claim leaves
   * the session to the processor, which, having made it live, finds its future cancelled and
   * closes it, on its own thread (see {@link #opened}): it then ends as any session does, its end
   * reported to its state.
   */
  static final class LoopConnect extends DefaultConnectFuture {
    private static final int WAITING = 0;
    private static final int CONNECTING = 1;
    private static final int TAKEN = 2;
    private static final int CANCELLED = 3;

    private final NioSocketConnector service;
    private final SocketAddress remote;
    private final IoSessionInitializer<ConnectFuture> initializer;
    private final AtomicInteger state = new AtomicInteger(WAITING);
    /** Set by the processor before it moves the state to CONNECTING; read by a cancel after. */
    private volatile NioSession session;

    LoopConnect(NioSocketConnector service, SocketAddress remote, IoSessionInitializer<ConnectFuture> initializer) {
      this.service = service;
      this.remote = remote;
      this.initializer = initializer;
    }

    /** True while not started nor cancelled. */
    boolean waiting() {
      return state.get() == WAITING;
    }

    /** The processor starts the connect of {@code s}: true unless it was cancelled first. */
    boolean start(NioSession s) {
      session = s;
      return state.compareAndSet(WAITING, CONNECTING);
    }

    /** Claims the session for the processor as its connect ends: true unless a cancel took it first. */
    boolean claim() {
      return state.compareAndSet(CONNECTING, TAKEN);
    }

    /** Fails a connect that was never started: its processor is being disposed. */
    void failClosed() {
      if (state.compareAndSet(WAITING, CANCELLED)) {
        setException(new ClosedChannelException());
      }
    }

    @Override
    public boolean cancel() {
      boolean cancelled = super.cancel();
      boolean neverStarted = false;
      if (cancelled) {
        if (state.compareAndSet(WAITING, CANCELLED)) {
          neverStarted = true;
        } else if (state.compareAndSet(CONNECTING, CANCELLED)) {
          // The processor will not make it live: its chain is empty, nothing else touches it.
          session.closeNow();
        }
      }
      Hooks h = hooks;
      if (h != null) {
        // Null when it was never started, even if start() has just set session and lost its CAS.
        h.cancelled(neverStarted ? null : session, this);
      }
      return cancelled;
    }
  }

  /**
   * For tests: called at the points of a connect this processor's selector watches where another
   * thread's cancel may meet it, before each wake-up of a selector, and around the MINA close of
   * each close made here. Null but in tests.
   */
  static volatile Hooks hooks;

  /** See {@link #hooks}. */
  interface Hooks {
    /**
     * On the processor's thread: the connect has ended and the processor has claimed its session
     * (or, before the claim was taken, found a cancel's), before the session is made live.
     */
    void finishing(NioSession session, ConnectFuture future);

    /** On the processor's thread: the connect is under way, its channel watched by the selector. */
    void watching(NioSession session, ConnectFuture future);

    /**
     * On the cancelling thread: a cancel of the connect has done all it does; {@code session} is
     * null for a connect handed over and not yet started.
     */
    void cancelled(NioSession session, ConnectFuture future);

    /** On the waking thread: {@code processor}'s selector is about to be woken. */
    default void wakingUp(NioProcessor processor) {}

    /** On the handing thread: a connect to {@code remote} is queued for {@code processor}'s loop. */
    default void handedOver(NioProcessor processor, SocketAddress remote) {}

    /** On the processor's thread: a turn of its loop took {@code n} of the connects handed over. */
    default void startedHandedOver(NioProcessor processor, int n) {}

    /**
     * On the processor's thread: {@link #closeHere} is about to call MINA's {@code closeNow} on
     * {@code session} ({@code done} false), or has returned from it ({@code done} true).
     */
    default void closingNow(NioSession session, boolean done) {}
  }

  /**
   * MINA asks whether a selected session is readable, and reads it if so: a plain session of a
   * Weft connector is read here instead (see {@link #readHere}), and MINA is told it is not. A
   * session whose connect this selector watches (see {@link #connectHere}) is never readable;
   * when its connect has ended, it is finished here. Only keys that are not readable are looked
   * at a second time.
   */
  @Override
  protected boolean isReadable(NioSession session) {
    if (super.isReadable(session)) {
      return !readHere(session);
    }
    if (minaChecked && SOCKET_SESSION != null) {
      SocketChannel channel = (SocketChannel) session.getChannel();
      SelectionKey key = channel.keyFor(selector);
      if (key != null && key.isValid() && (key.readyOps() & SelectionKey.OP_CONNECT) != 0) {
        finishConnect(session, channel, key);
      }
    }
    return false;
  }

  private void finishConnect(NioSession session, SocketChannel channel, SelectionKey key) {
    LoopConnect future = (LoopConnect) session.getAttribute(CONNECTING);
    if (future == null) {
      return;
    }
    try {
      if (!channel.finishConnect()) {
        return;
      }
    } catch (IOException e) {
      session.removeAttribute(CONNECTING);
      key.cancel();
      try {
        channel.close();
      } catch (IOException closing) {
        e.addSuppressed(closing);
      }
      future.setException(e);
      return;
    }
    session.removeAttribute(CONNECTING);
    boolean claimed = future.claim();
    Hooks h = hooks;
    if (h != null) {
      h.finishing(session, future);
    }
    if (!claimed) {
      // Cancelled from another thread before this thread claimed it: never made live. Closed
      // here; the close that cancel queued then finds its key cancelled and skips it.
      key.cancel();
      closeQuietly(channel);
      return;
    }
    // Claimed: a cancel from now on leaves the channel and its key to this thread.
    key.interestOps(SelectionKey.OP_READ);
    opened(session, future);
  }

  /**
   * What MINA's connector and then this processor's adding of a session do once it is connected,
   * on this thread: the initializer (which binds Weft's state, and adds TLS), the chain, and the
   * session reported created and opened, which completes {@code future}. Marked on the thread as
   * {@link #init} marks MINA's own adding: the continuation resumed by that completion may write
   * its first request inline.
   */
  private void opened(NioSession session, LoopConnect future) {
    try {
      session.setAttribute(DefaultIoFilterChain.SESSION_CREATED_FUTURE, future);
      if (future.initializer != null) {
        future.initializer.initializeSession(session, future);
      }
      Thread t = Thread.currentThread();
      if (t instanceof MinaIoThread) {
        MinaIoThread io = (MinaIoThread) t;
        io.loop = this;
        io.adding = session;
      }
      AbstractIoService service = (AbstractIoService) session.getService();
      service.getFilterChainBuilder().buildFilterChain(session.getFilterChain());
      service.getListeners().fireSessionCreated(session);
      if (future.isCanceled()) {
        // Cancelled after this thread had claimed it, so before MINA's tail filter completed the
        // future as the session opened: ended as MINA's connector ends a cancelled connect's
        // session. Its removal, later in this turn of the loop, reports its end.
        session.closeNow();
      }
    } catch (Exception e) {
      // As MINA's adding of a session: reported, the channel closed; and the future told.
      ExceptionMonitor.getInstance().exceptionCaught(e);
      try {
        destroy(session);
      } catch (Exception closing) {
        e.addSuppressed(closing);
      }
      future.setException(e);
    }
  }

  private static void closeQuietly(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      LOG.debug("closing {} failed", channel, e);
    }
  }

  /**
   * MINA's closing of a session's channel; for a session whose connect is still watched (the
   * processor is being disposed, its connector closed), the connect's future is failed too, as
   * MINA's connector fails the connects it still holds when disposed.
   */
  @Override
  protected void destroy(NioSession session) throws Exception {
    LoopConnect connect = (LoopConnect) session.removeAttribute(CONNECTING);
    try {
      super.destroy(session);
    } finally {
      if (connect != null) {
        connect.setException(new java.nio.channels.ClosedChannelException());
      }
    }
  }

  /**
   * MINA asks this once its loop has no session left, to end the loop's thread (a new one starts
   * with the next session): not while connects handed over to it wait to be started (see
   * {@link #connectFromElsewhere}). Asked after MINA has marked the loop ended, which a hand-over
   * coming after this look sees, and so starts the loop again.
   */
  @Override
  protected boolean isSelectorEmpty() {
    return handedOver.isEmpty() && super.isSelectorEmpty();
  }

  /**
   * MINA's disposal of the processor, its loop ended (its selector closed); a connect handed over
   * and not started then fails, as one whose channel it watched does (see {@link #destroy}).
   */
  @Override
  protected void doDispose() throws Exception {
    try {
      super.doDispose();
    } finally {
      failHandedOver();
    }
  }

  /**
   * MINA's check, after a select that woke for nothing, for channels that are not connected (it
   * cancels their keys): a channel whose connect this selector watches is not connected yet, and
   * is skipped.
   */
  @Override
  protected boolean isBrokenConnection() throws IOException {
    boolean broken = false;
    selectorLock.readLock().lock();
    try {
      for (SelectionKey key : selector.keys()) {
        if (key.channel() instanceof SocketChannel) {
          SocketChannel channel = (SocketChannel) key.channel();
          if (!channel.isConnected() && !channel.isConnectionPending()) {
            key.cancel();
            broken = true;
          }
        }
      }
    } finally {
      selectorLock.readLock().unlock();
    }
    return broken;
  }

  /**
   * A channel's failure as a {@link java.net.Socket} reports it: the JDK's socket streams turn
   * the channel's plain {@code IOException} ("Connection reset by peer", "Broken pipe") into a
   * {@link SocketException} with the same message.
   */
  static IOException asSocketException(IOException e) {
    if (e.getClass() != IOException.class) {
      return e;
    }
    SocketException s = new SocketException(e.getMessage());
    s.initCause(e);
    return s;
  }

  /**
   * MINA wakes the selector on every write, from whichever thread. A write made on this
   * processor's own thread while it delivers input (a session resumed where its bytes arrived)
   * needs no wake-up: the processor flushes right after delivering input, in the same turn of its
   * loop. Skipping it saves the selector's wake-up system call and a turn of the loop that selects
   * nothing. The same for the removal that MINA's close queues when this processor closes a
   * session here ({@link #closeHere}, while it processes ready sessions, the session's write
   * queue empty): that removal needs no turn of the loop at all, since {@code closeHere} itself
   * cancels the key, closes the channel and reports the session ended, and MINA's removal then
   * finds the session closing and only drops it; the cancelled key's descriptor is released at
   * the next select, which follows this turn with or without a wake-up. In a profile of connect-per-session Redis clients that close's wake-up was about 0.2
   * eventfd writes and 0.2 reads per session, the only system calls per session beyond Netty's
   * (2026-11-28, perf10 note). Every other wake-up (another processor's thread, a traffic change,
   * disposal) goes through.
   */
  @Override
  protected void wakeup() {
    Thread t = Thread.currentThread();
    if (t instanceof MinaIoThread) {
      MinaIoThread io = (MinaIoThread) t;
      if (io.loop == this && (io.closingHere || (io.writing && io.receiving != null))) {
        return;
      }
    }
    Hooks h = hooks;
    if (h != null) {
      h.wakingUp(this);
    }
    super.wakeup();
  }

  /**
   * Writes {@code length} bytes of {@code src} to {@code session}'s socket now, from this
   * processor's own thread while it delivers the session's input or completes its connect (see
   * {@link IoThreads#wakeConnected}), if nothing is queued before them: as Netty
   * writes on its event loop, with no write request, no future and no later turn of the loop.
   * Returns how many bytes went to the kernel: 0 when it may not write now (another thread, a
   * write queued or in progress, a filter such as TLS on the session, a session closing), fewer
   * than {@code length} when the socket's send buffer is full; the caller queues the rest through
   * MINA as usual, in order, since nothing was queued before.
   */
  public int writeNow(NioSession session, byte[] src, int length) {
    Thread t = Thread.currentThread();
    if (!(t instanceof MinaIoThread) || length > MinaIoThread.DIRECT_BYTES) {
      return 0;
    }
    MinaIoThread io = (MinaIoThread) t;
    if (io.loop != this || !io.serves(session) || session.isClosing() || !session.isConnected()
        || session.isWriteSuspended() || session.getCurrentWriteRequest() != null
        || !session.getWriteRequestQueue().isEmpty(session)
        || hasFilter(session)) {
      return 0;
    }
    IoBuffer direct = io.direct();
    direct.put(src, 0, length).flip();
    try {
      return Math.max(0, write(session, direct, length));
    } catch (IOException e) {
      // write() has already reported the failure to the session's state and closed it.
      return 0;
    }
  }

  /**
   * Registers {@code session}'s channel, on this processor's own thread (MINA's adding of a new
   * session, in its loop's turn). Records on the thread that it runs this processor's loop and
   * which session it is adding: MINA then completes the session's connect future on this same
   * thread, in the same turn and before its flush, and a continuation resumed by that completion
   * may write its first request inline (see {@link IoThreads#wakeConnected}).
   */
  @Override
  protected void init(NioSession session) throws Exception {
    super.init(session);
    Thread t = Thread.currentThread();
    if (t instanceof MinaIoThread) {
      MinaIoThread io = (MinaIoThread) t;
      io.loop = this;
      io.adding = session;
    }
  }

  /**
   * Closes {@code session}'s socket now, from this processor's own thread while it delivers the
   * session's input: the close a continuation makes when its reply ends it there. Returns false,
   * doing nothing, where it does not apply (another thread, a filter such as TLS on the session,
   * a write under way, a session already closing); the caller then closes it as MINA does.
   *
   * <p>Why: MINA's {@code closeNow()} only queues the session for removal, and its processor
   * closes the socket at the end of its loop's turn, after every other session it delivers to in
   * that turn. A runner admits the next session as this one ends, on this thread, and MINA's
   * connect sends its SYN at once from the calling thread; so without this the server saw the
   * next connection before this one's FIN, up to a whole turn's worth of sessions more than the
   * runner's {@code maxInFlight}, and a server that counts its clients (redis-server's
   * {@code maxclients}) refused connections that Netty's and the socket transport's sessions,
   * which close their socket inside {@code close()}, never made it refuse.
   *
   * <p>How: as MINA's own removal does, on this same thread, only earlier: MINA's close first
   * (the session marked closing, its queued writes dropped, its removal queued), then this
   * processor's {@code destroy} (key cancelled, channel closed: the JDK shuts a registered
   * channel's output at once, so the peer reads end of stream now, and frees the descriptor at
   * the next select), then the end of the session reported to MINA's listeners and filter chain
   * (its close future, the handler's {@code sessionClosed}). MINA's removal, later in the turn,
   * finds the key cancelled and skips the session; reporting its end twice is harmless too, since
   * MINA reports only a session it still manages.
   */
  boolean closeHere(NioSession session) {
    if (session.isClosing() || session.getCurrentWriteRequest() != null || hasFilter(session)
        || getState(session) != org.apache.mina.core.session.SessionState.OPENED) {
      return false;
    }
    Thread t = Thread.currentThread();
    MinaIoThread io = t instanceof MinaIoThread ? (MinaIoThread) t : null;
    // With its write queue empty (and no filter, checked above) the close runs nothing but the
    // removal: no write future's listeners, whose own wake-ups must go through.
    if (io != null) {
      io.closingHere = session.getWriteRequestQueue().isEmpty(session);
    }
    Hooks h = hooks;
    if (h != null) {
      h.closingNow(session, false);
    }
    try {
      session.closeNow();
    } finally {
      if (io != null) {
        io.closingHere = false;
      }
      if (h != null) {
        h.closingNow(session, true);
      }
    }
    try {
      destroy(session);
    } catch (Exception e) {
      // As MINA's removal does with a failure to close: the session is reported ended anyway.
      LOG.debug("session {}: close failed", session, e);
    }
    ((AbstractIoService) session.getService()).getListeners().fireSessionDestroyed(session);
    return true;
  }

  /**
   * Reads {@code session}'s socket. A plain session of a Weft connector (its state attached, no
   * filter in its chain) is read here, on this processor's own thread, into the thread's direct
   * buffer, and the bytes go straight to the session's state, as Netty's event loop reads into a
   * pooled direct buffer and hands it to the pipeline: the socket's bytes are copied once, into
   * the state's inbound buffer. MINA's own read then sees 0 bytes: it fires no
   * {@code messageReceived}, walks no filter chain, and reads the socket no second time to learn
   * that it is drained (a read that fills less than the buffer has drained it; the selector
   * reports the socket again when more arrives). {@link #readHere} makes that read before MINA's
   * own, which then never comes for such a session; where it would, the heap buffer MINA
   * allocates before each read goes unused, so such a session's read buffer size is MINA's
   * minimum (see {@link SessionState#attach}). MINA's read counters ({@code getReadBytes}, idle status) do
   * not count bytes read this way; Weft uses neither. Every other read (a session with TLS or
   * any other filter) goes through MINA as usual.
   *
   * <p>A plain session still reaches this method (rather than {@link #readHere}) on a mina-core
   * this processor was not checked against (see {@link #CHECKED_MINA}), and when its reads were
   * suspended at {@code readHere} and resumed by another thread before MINA's own check of
   * {@code isReadSuspended()}: read and delivered as before, with MINA's 1-byte buffer unused.
   */
  @Override
  protected int read(NioSession session, IoBuffer buf) throws Exception {
    Thread t = Thread.currentThread();
    if (!(t instanceof MinaIoThread)) {
      return readChannel(session, buf);
    }
    MinaIoThread io = (MinaIoThread) t;
    io.loop = this;
    SessionState state = plainState(session);
    if (state != null) {
      return readAndDeliver(io, session, state);
    }
    if (buf.remaining() <= MinaIoThread.DIRECT_BYTES) {
      // Through this thread's direct buffer: the same copy NIO would make into its temporary
      // direct buffer, without the thread-local lookup that finds that one.
      IoBuffer direct = io.direct();
      direct.limit(buf.remaining());
      int n = readChannel(session, direct);
      if (n > 0) {
        direct.flip();
        buf.put(direct);
      }
      return n;
    }
    return readChannel(session, buf);
  }

  /**
   * Reads a readable plain session of a Weft connector (its state attached, no filter in its
   * chain) on this processor's own thread, as {@link #read(NioSession, IoBuffer)} would, and
   * returns true; false, reading nothing, for any other session, or one whose reads are
   * suspended, which MINA then reads (or skips) as usual. MINA's read of a session, the next step
   * of its turn after this question, first allocates a heap buffer of the session's read buffer
   * size, then calls that method, which reads such a session into the thread's direct buffer and
   * leaves the heap buffer unused: made here, the read allocates nothing. What MINA's read does
   * with the outcome is done here too: at the end of the stream (or a failed read, see
   * {@link #readChannel}) the chain hears that the input closed, and MINA then closes the
   * session; any other exception goes to the chain's {@code exceptionCaught}. False, MINA's read,
   * on a mina-core this was not checked against (see {@link #CHECKED_MINA}).
   */
  private boolean readHere(NioSession session) {
    Thread t = Thread.currentThread();
    if (!minaChecked || !(t instanceof MinaIoThread) || session.isReadSuspended()) {
      return false;
    }
    SessionState state = plainState(session);
    if (state == null) {
      return false;
    }
    MinaIoThread io = (MinaIoThread) t;
    io.loop = this;
    try {
      if (readAndDeliver(io, session, state) < 0) {
        session.getFilterChain().fireInputClosed();
      }
    } catch (Exception e) {
      // Not an IOException: readChannel has taken those, as the end of the stream.
      session.getFilterChain().fireExceptionCaught(e);
    }
    return true;
  }

  /**
   * The state of a plain session of a Weft connector (its state attached, no filter in its chain);
   * null for any other session.
   */
  private static SessionState plainState(NioSession session) {
    SessionState state = (SessionState) session.getAttribute(SessionState.KEY);
    return state == null || hasFilter(session) ? null : state;
  }

  /** True if any filter (TLS, or any other) is in the session's chain: a walk, no allocation. */
  private static boolean hasFilter(NioSession session) {
    return session.getFilterChain().contains(IoFilter.class);
  }

  /** How many times one read event refills the direct buffer before yielding to other sessions. */
  private static final int READS_PER_EVENT = 16;

  /**
   * Reads into the thread's direct buffer and delivers each fill to {@code state}; returns -1 at
   * the end of the stream or on a failure (MINA then closes the session), else 0.
   */
  private int readAndDeliver(MinaIoThread io, NioSession session, SessionState state) throws Exception {
    for (int i = 0; i < READS_PER_EVENT; i++) {
      IoBuffer direct = io.direct();
      int n = readChannel(session, direct);
      if (n <= 0) {
        return n < 0 ? -1 : 0;
      }
      direct.flip();
      SessionStateHandler.deliver(session, state, direct.buf());
      if (n < MinaIoThread.DIRECT_BYTES || session.isReadSuspended() || session.isClosing()) {
        return 0;
      }
    }
    return 0;
  }

  private int readChannel(NioSession session, IoBuffer buf) throws Exception {
    try {
      return super.read(session, buf);
    } catch (IOException e) {
      failed(session, "read", e);
      return -1;
    }
  }

  /**
   * Writes up to {@code length} bytes of {@code buf}. A heap buffer written on a Weft I/O thread
   * goes through the thread's direct buffer: the copy NIO would make into its per-thread
   * temporary direct buffer, without the thread-local lookup that finds that one.
   */
  @Override
  protected int write(NioSession session, IoBuffer buf, int length) throws IOException {
    try {
      Thread t = Thread.currentThread();
      if (t instanceof MinaIoThread && !buf.isDirect() && buf.hasArray()) {
        int n = Math.min(length, Math.min(buf.remaining(), MinaIoThread.DIRECT_BYTES));
        IoBuffer direct = ((MinaIoThread) t).direct();
        direct.put(buf.array(), buf.arrayOffset() + buf.position(), n).flip();
        int written = super.write(session, direct, n);
        if (written > 0) {
          buf.position(buf.position() + written);
        }
        return written;
      }
      return super.write(session, buf, length);
    } catch (IOException e) {
      failed(session, "write", e);
      session.closeNow();
      return 0;
    }
  }

  private static void failed(NioSession session, String what, IOException e) {
    LOG.debug("session {}: {} failed", session, what, e);
    SessionState state = (SessionState) session.getAttribute(SessionState.KEY);
    if (state != null) {
      boolean previous = IoThreads.enter();
      try {
        state.onFailure(asSocketException(e));
      } finally {
        IoThreads.exit(previous);
      }
    }
  }
}
