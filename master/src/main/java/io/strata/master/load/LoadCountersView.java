package io.strata.master.load;

import io.strata.core.proto.LoadCounters;
import java.util.Locale;

/** How a job's counters read in its final message. */
record LoadCountersView(LoadCounters c) {
  long failed() {
    return c.getFilesFailed();
  }

  /** Whether the job succeeded: nothing failed, or (when allowed) only files that had no room. */
  boolean succeeded(boolean allowPartial) {
    return c.getFilesFailed() == 0 || (allowPartial && c.getFilesFailed() == c.getFilesNoRoom());
  }

  String summary(String path) {
    if (c.getFiles() == 0) {
      return "no files under " + path + ": nothing to load";
    }
    String loaded =
        String.format(
            Locale.ROOT,
            "%d files, %d bytes (%d read from the under-storage)",
            c.getFiles(),
            c.getBytes(),
            c.getBytesLoaded());
    return c.getFilesFailed() == 0
        ? "loaded " + loaded
        : c.getFilesFailed()
            + " of "
            + c.getFiles()
            + " files failed ("
            + c.getBytesFailed()
            + " bytes not cached); done "
            + loaded;
  }
}
