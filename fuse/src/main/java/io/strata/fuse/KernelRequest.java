package io.strata.fuse;

import java.nio.charset.StandardCharsets;
import jnr.ffi.Pointer;

/**
 * One request as the kernel wrote it into a {@link KernelSlot}: its header's fields, its body's
 * integers and names, and the reply's payload being built after the reply header.
 */
final class KernelRequest {
  final KernelSlot slot;
  final int opcode;
  final long unique;
  final long node;
  final int uid;
  final int gid;
  final int pid;

  /** The body's length: what follows the header. */
  final int length;

  KernelRequest(KernelSlot slot, int read) {
    this.slot = slot;
    Pointer r = slot.request;
    this.opcode = r.getInt(4);
    this.unique = r.getLong(8);
    this.node = r.getLong(16);
    this.uid = r.getInt(24);
    this.gid = r.getInt(28);
    this.pid = r.getInt(32);
    this.length = read - FuseAbi.IN_HEADER;
  }

  int int32(int at) {
    return slot.request.getInt(FuseAbi.IN_HEADER + at);
  }

  long int64(int at) {
    return slot.request.getLong(FuseAbi.IN_HEADER + at);
  }

  /** The body from {@code at} on, in place. */
  Pointer body(int at) {
    return slot.request.slice(FuseAbi.IN_HEADER + at);
  }

  /** The NUL-ended name at {@code at} of the body. */
  String name(int at) {
    return new String(nameBytes(at), StandardCharsets.UTF_8);
  }

  /** The offset in the body just after the NUL-ended name at {@code at}. */
  int after(int at) {
    return at + nameBytes(at).length + 1;
  }

  private byte[] nameBytes(int at) {
    long start = (long) FuseAbi.IN_HEADER + at;
    int n = 0;
    while (at + n < length && slot.request.getByte(start + n) != 0) {
      n++;
    }
    byte[] b = new byte[n];
    slot.request.get(start, b, 0, n);
    return b;
  }

  /** The reply's payload, from its start (after the reply header). */
  Pointer out() {
    return slot.reply.slice(FuseAbi.OUT_HEADER);
  }
}
