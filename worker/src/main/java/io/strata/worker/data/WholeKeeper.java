package io.strata.worker.data;

import io.strata.worker.page.PageId;
import io.strata.worker.ufs.UfsManager;
import java.util.concurrent.CompletableFuture;

/** What keeps a version whole on the worker's disk for a WHOLE request (the worker's loader). */
@FunctionalInterface
public interface WholeKeeper {
  /**
   * Completes true once the version is sealed whole, false when it is not one to keep whole;
   * exceptionally when it cannot be read.
   */
  CompletableFuture<Boolean> keepWhole(
      UfsManager.Resolved file, PageId.FileKey key, String fingerprint, long length);
}
