package io.weft.perf.peers;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The hand-written Netty 4.1 callback client, the async-by-hand baseline: one
 * {@link NioEventLoopGroup} with one event loop does every connect, read and write. Each
 * session is a channel whose pipeline is a small RESP decoder ({@link IntegerReplyDecoder})
 * and a state machine ({@link IncrSessionHandler}): on connect it writes the first
 * {@code INCR}, on each integer reply it records the round trip and writes the next, after the
 * last it closes the channel; the channel's close starts the next session, so N stay in
 * flight. Commands go out in pooled direct buffers, written and flushed with the void promise.
 *
 * <p>The event loop is made on first use and kept for every later run; {@link #close()} shuts
 * it down.
 */
final class NettyCallbackClient implements PeerClient {
  private EventLoopGroup group;
  private Bootstrap template;

  @Override
  public String label() {
    return "netty 4.1 callbacks";
  }

  @Override
  public String unavailableReason(PeerWorkload workload) {
    return null;
  }

  @Override
  public boolean inProcess() {
    return true;
  }

  @Override
  public ClientRun run(PeerWorkload workload) throws InterruptedException {
    if (group == null) {
      group = new NioEventLoopGroup(1, new DefaultThreadFactory("peers-netty", true));
      template = new Bootstrap().group(group).channel(NioSocketChannel.class)
          .option(ChannelOption.TCP_NODELAY, true)
          .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
              (int) Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(workload.timeoutNanos)));
    }
    Run run = new Run(workload, new RoundTrips(), new SessionLauncher(workload.totalSessions));
    long start = System.nanoTime();
    group.execute(() -> {
      for (int i = 0; i < workload.concurrency; i++) {
        startNext(run);
      }
    });
    run.sessions.await(workload.timeoutNanos, TimeUnit.NANOSECONDS);
    long wall = System.nanoTime() - start;
    return ClientRun.inProcess(run.sessions.failed(), run.sessions.failureSummary(), wall, run.roundTrips.interval());
  }

  /** On the event loop: connects the next session, if any is left. */
  private void startNext(Run run) {
    int session = run.sessions.nextSession();
    if (session < 0) {
      return;
    }
    IncrSessionHandler handler = new IncrSessionHandler(run, session);
    ChannelFuture connect = template.clone().handler(new ChannelInitializer<Channel>() {
      @Override
      protected void initChannel(Channel ch) {
        ch.pipeline().addLast(new IntegerReplyDecoder(), handler);
      }
    }).connect(run.workload.redis);
    connect.addListener(f -> {
      if (!f.isSuccess()) {
        handler.end(f.cause());
      }
    });
  }

  @Override
  public void close() {
    if (group != null) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
      group = null;
    }
  }

  /** One run's shared state, read on the event loop. */
  private static final class Run {
    final PeerWorkload workload;
    final RoundTrips roundTrips;
    final SessionLauncher sessions;

    Run(PeerWorkload workload, RoundTrips roundTrips, SessionLauncher sessions) {
      this.workload = workload;
      this.roundTrips = roundTrips;
      this.sessions = sessions;
    }
  }

  /**
   * One session: {@code requests} INCRs, one at a time. States: connecting → (each reply)
   * sending → ... → done, or failed from any state; the end is reported once, when the channel
   * closes or the connect fails, and then the next session starts.
   */
  private final class IncrSessionHandler extends ChannelInboundHandlerAdapter {
    private final Run run;
    private final int session;
    private final byte[] command;
    private int done;
    private long sentAt;
    private Throwable failure;
    private boolean ended;

    IncrSessionHandler(Run run, int session) {
      this.run = run;
      this.session = session;
      String key = "peers:" + (session % run.workload.keys);
      this.command = ("*2\r\n$4\r\nINCR\r\n$" + key.length() + "\r\n" + key + "\r\n")
          .getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      send(ctx);
    }

    private void send(ChannelHandlerContext ctx) {
      ByteBuf buf = ctx.alloc().ioBuffer(command.length);
      buf.writeBytes(command);
      sentAt = System.nanoTime();
      ctx.writeAndFlush(buf, ctx.voidPromise());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (!(msg instanceof Long)) {
        fail(ctx, new IOException("expected an integer reply but got " + msg));
        return;
      }
      run.roundTrips.accept(sentAt);
      if (++done < run.workload.requestsPerSession) {
        send(ctx);
      } else {
        ctx.close();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      fail(ctx, cause);
    }

    private void fail(ChannelHandlerContext ctx, Throwable cause) {
      if (failure == null) {
        failure = cause;
      }
      ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (failure == null && done < run.workload.requestsPerSession) {
        failure = new EOFException("connection closed after " + done + " of "
            + run.workload.requestsPerSession + " round trips");
      }
      end(failure);
    }

    void end(Throwable cause) {
      if (ended) {
        return;
      }
      ended = true;
      run.sessions.ended(session, cause);
      startNext(run);
    }
  }

  /**
   * A small RESP decoder for single-line replies: an integer ({@code :}) becomes a
   * {@link Long}, a simple string ({@code +}) a {@link String}, an error ({@code -}) an
   * {@link IOException} passed on as a message; bulk strings and arrays, which INCR never
   * answers with, are a decoding error.
   */
  private static final class IntegerReplyDecoder extends ByteToMessageDecoder {
    private static final int MAX_LINE = 1024;

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
      for (;;) {
        int from = in.readerIndex();
        int lf = in.indexOf(from, in.writerIndex(), (byte) '\n');
        if (lf < 0) {
          if (in.readableBytes() > MAX_LINE) {
            throw new DecoderException("reply line longer than " + MAX_LINE + " bytes");
          }
          return;
        }
        if (lf - from < 2 || in.getByte(lf - 1) != '\r') {
          throw new DecoderException("reply line not ended by CRLF");
        }
        byte type = in.getByte(from);
        int end = lf - 1;
        switch (type) {
          case ':':
            out.add(parseLong(in, from + 1, end));
            break;
          case '+':
            out.add(in.toString(from + 1, end - from - 1, StandardCharsets.UTF_8));
            break;
          case '-':
            out.add(new IOException("error reply: " + in.toString(from + 1, end - from - 1, StandardCharsets.UTF_8)));
            break;
          default:
            throw new DecoderException("unsupported reply type '" + (char) type + "'");
        }
        in.readerIndex(lf + 1);
      }
    }

    private static long parseLong(ByteBuf in, int from, int end) {
      boolean negative = from < end && in.getByte(from) == '-';
      int i = negative ? from + 1 : from;
      if (i == end || end - i > 19) {
        throw new DecoderException("bad integer reply");
      }
      long value = 0;
      for (; i < end; i++) {
        byte c = in.getByte(i);
        if (c < '0' || c > '9') {
          throw new DecoderException("bad integer reply byte " + c);
        }
        value = value * 10 + (c - '0');
      }
      return negative ? -value : value;
    }
  }
}
