package io.weft.load.internal;

import java.io.IOException;
import java.net.SocketAddress;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.service.IoHandlerAdapter;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.transport.vmpipe.VmPipeAcceptor;
import org.apache.mina.transport.vmpipe.VmPipeAddress;

/**
 * The {@code line --in-vm} server: an echo on MINA's in-VM pipe, every byte written back as it
 * came (a line scenario's lines come back whole and in order). The pipe is synchronous: the echo
 * runs on the writer's thread, so it needs no thread of its own.
 */
public final class InVmEcho implements AutoCloseable {
  private final VmPipeAcceptor acceptor = new VmPipeAcceptor();

  public InVmEcho() throws IOException {
    acceptor.setHandler(new IoHandlerAdapter() {
      @Override
      public void messageReceived(IoSession session, Object message) {
        IoBuffer in = (IoBuffer) message;
        IoBuffer copy = IoBuffer.allocate(in.remaining());
        copy.put(in).flip();
        session.write(copy);
      }
    });
    acceptor.bind(new VmPipeAddress(0));
  }

  /** Where to connect, with {@code MinaConnector.vmPipe()}. */
  public SocketAddress address() {
    return acceptor.getLocalAddress();
  }

  @Override
  public void close() {
    acceptor.unbind();
    acceptor.dispose(true);
  }
}
