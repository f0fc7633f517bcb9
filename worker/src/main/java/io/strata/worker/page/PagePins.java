package io.strata.worker.page;

/**
 * Which pages eviction must pass over: those of pinned files ({@code fs pin}), as far as the
 * worker's pin capacity goes. Asked while a tier holds its lock: answers from memory, at once.
 */
@FunctionalInterface
public interface PagePins {
  PagePins NONE = id -> false;

  boolean pinned(PageId id);
}
