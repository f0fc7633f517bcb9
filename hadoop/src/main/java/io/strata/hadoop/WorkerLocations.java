package io.strata.hadoop;

import java.util.List;
import org.apache.hadoop.fs.BlockLocation;

/** Where a file's cache lies, as Hadoop's schedulers read block locations. */
final class WorkerLocations {
  private WorkerLocations() {}

  /**
   * The whole of a file of {@code length} bytes as one location on {@code workers} ({@code
   * host:port} worker ids, its owner first), by host.
   */
  static BlockLocation of(List<String> workers, long length) {
    String[] names = workers.toArray(String[]::new);
    String[] hosts =
        workers.stream()
            .map(w -> w.substring(0, Math.max(0, w.lastIndexOf(':'))))
            .toArray(String[]::new);
    return new BlockLocation(names, hosts, 0, length);
  }
}
