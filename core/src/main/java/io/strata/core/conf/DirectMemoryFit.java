package io.strata.core.conf;

import io.strata.core.status.StrataException;

/**
 * The memory tier lives in the JVM's direct memory, beside the data plane's buffers: a tier larger
 * than that limit would fail with OutOfMemoryError once it filled, far from the setting that caused
 * it. So it is refused when it is set: by the worker at start and while running, and by the leader
 * for an update, against what the live workers report.
 */
public final class DirectMemoryFit {
  /** Direct memory kept for the data plane's buffers, beside the memory tier. */
  public static final long DATA_PLANE_ROOM = 64L << 20;

  private DirectMemoryFit() {}

  /**
   * Whether a memory tier of {@code memBytes} fits under a direct-memory limit of {@code limit}.
   */
  public static boolean fits(long memBytes, long limit) {
    return memBytes <= limit - DATA_PLANE_ROOM;
  }

  /** Refuses (INVALID_ARGUMENT) a memory tier that does not fit, saying what to change. */
  public static void require(long memBytes, long limit) {
    if (!fits(memBytes, limit)) {
      throw StrataException.invalidArgument(why(memBytes, limit));
    }
  }

  public static String why(long memBytes, long limit) {
    return WorkerKeys.MEM_SIZE.name()
        + " ("
        + (memBytes >> 20)
        + " MiB) does not fit in this worker's direct memory ("
        + (limit >> 20)
        + " MiB, -XX:MaxDirectMemorySize) with "
        + (DATA_PLANE_ROOM >> 20)
        + " MiB left for the data plane: lower the one or raise the other";
  }
}
