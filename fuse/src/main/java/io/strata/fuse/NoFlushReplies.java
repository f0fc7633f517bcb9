package io.strata.fuse;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.MemoryIO;
import com.kenai.jffi.Type;
import java.util.function.LongPredicate;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.annotations.Delegate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Spares files opened read-only the FLUSH request the kernel sends at every close(2).
 *
 * <p>FLUSH lets a file system report an error from close(2); Strata publishes a written file there
 * ({@link Writes}). A reader has nothing to flush, yet each of its closes is a request through this
 * process and a thread woken to answer it: a quarter of a small file's requests (look-up, open,
 * flush, release). Since Linux 5.17 an open's reply can carry FOPEN_NOFLUSH, and the kernel then
 * sends no FLUSH for that file. libfuse 2, which jnr-fuse binds, builds the reply from a few bits
 * of fuse_file_info and cannot say it. So, at INIT, this class puts itself in front of the send
 * function of libfuse's channel and sets the flag in each open reply whose handle is a reader's. (A
 * file system answering FLUSH with ENOSYS, as bindfs does, stops FLUSH for every file, writers'
 * too: Strata would publish at the release, which the kernel sends after close(2) has returned.)
 *
 * <p>The channel is libfuse 2.9's {@code struct fuse_chan}, whose layout cannot change any more
 * (libfuse 2 is frozen): the {@code receive}, {@code send} and {@code destroy} function pointers,
 * then the session and the descriptor. Both are compared with what libfuse says before anything is
 * written; if either differs, nothing is changed and readers get FLUSH as before.
 */
final class NoFlushReplies {
  private static final Logger LOG = LoggerFactory.getLogger(NoFlushReplies.class);

  /** fuse_open_out.open_flags: no FLUSH at close (include/uapi/linux/fuse.h, Linux 5.17). */
  private static final int FOPEN_NOFLUSH = 1 << 5;

  private static final long SEND = 8;
  private static final long SESSION = 24;
  private static final long DESCRIPTOR = 32;
  private static final long OUT_HEADER_BYTES = 16;
  private static final long OPEN_OUT_BYTES = 16;
  private static final long IOVEC_BYTES = 16;

  /** libfuse 2's calls that find a mount's channel. */
  public interface Channels {
    Pointer fuse_get_session(Pointer fuse);

    Pointer fuse_session_next_chan(Pointer session, Pointer previous);

    int fuse_chan_fd(Pointer channel);
  }

  /** {@code int (*send)(struct fuse_chan *ch, const struct iovec iov[], size_t count)}. */
  public interface Send {
    @Delegate
    int send(long channel, long iov, long count);
  }

  private static final MemoryIO MEMORY = MemoryIO.getInstance();
  private static final Invoker INVOKER = Invoker.getInstance();
  private static final CallContext SEND_CALL =
      CallContext.getCallContext(
          Type.SINT,
          new Type[] {Type.POINTER, Type.POINTER, Type.ULONG},
          CallingConvention.DEFAULT,
          false);

  private final long libfuseSend;
  private final LongPredicate readerHandle;
  // Held for as long as libfuse may call it: the closure's code goes with the object.
  private final Send send = this::send;
  private final Pointer sendCode;

  private NoFlushReplies(long libfuseSend, LongPredicate readerHandle) {
    this.libfuseSend = libfuseSend;
    this.readerHandle = readerHandle;
    this.sendCode =
        Runtime.getSystemRuntime().getClosureManager().getClosurePointer(Send.class, send);
  }

  /**
   * Interposes on the channel of mount {@code fuse} (fuse_context.fuse, during INIT, before any
   * other request is read); returns the interposer, to be kept as long as the mount, or null if the
   * channel is not libfuse 2.9's.
   */
  static NoFlushReplies install(Pointer fuse, LongPredicate readerHandle) {
    try {
      Channels libfuse =
          LibraryLoader.create(Channels.class).failImmediately().load("libfuse.so.2");
      Pointer session = libfuse.fuse_get_session(fuse);
      Pointer channel = session == null ? null : libfuse.fuse_session_next_chan(session, null);
      if (channel == null
          || channel.getLong(SESSION) != session.address()
          || channel.getInt(DESCRIPTOR) != libfuse.fuse_chan_fd(channel)
          || channel.getLong(SEND) == 0) {
        LOG.info("libfuse's channel is not laid out as 2.9's: readers get a FLUSH at each close");
        return null;
      }
      NoFlushReplies replies = new NoFlushReplies(channel.getLong(SEND), readerHandle);
      channel.putLong(SEND, replies.sendCode.address());
      return replies;
    } catch (LinkageError | RuntimeException e) {
      LOG.info("readers get a FLUSH at each close: {}", e.toString());
      return null;
    }
  }

  private int send(long channel, long iov, long count) {
    try {
      markReaderOpen(iov, count);
    } catch (RuntimeException e) {
      // The reply must go out whatever happens here: the kernel's caller waits for it.
      LOG.warn("inspecting a reply: {}", e.toString());
    }
    return (int) INVOKER.invokeN3(SEND_CALL, libfuseSend, channel, iov, count);
  }

  /** Sets FOPEN_NOFLUSH if the reply in {@code iov} answers an open with a reader's handle. */
  private void markReaderOpen(long iov, long count) {
    if (count != 2 || MEMORY.getLong(iov + 8) != OUT_HEADER_BYTES) {
      return;
    }
    long arg = MEMORY.getLong(iov + IOVEC_BYTES);
    // An answer with an error has no argument; opendir's handle is libfuse's own pointer.
    if (MEMORY.getLong(iov + IOVEC_BYTES + 8) == OPEN_OUT_BYTES
        && readerHandle.test(MEMORY.getLong(arg))) {
      MEMORY.putInt(arg + 8, MEMORY.getInt(arg + 8) | FOPEN_NOFLUSH);
    }
  }
}
