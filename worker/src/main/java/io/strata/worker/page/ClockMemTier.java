package io.strata.worker.page;

import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The default memory tier: LRU by the CLOCK approximation. A read only sets the page's referenced
 * bit (no lock, no list update); eviction sweeps the pages in insertion order, giving a referenced
 * page a second chance (clearing its bit, moving it back) and evicting the first unreferenced one.
 * This is how operating systems approximate LRU for their page caches, and it keeps the read path
 * free of contention. Pages of pinned files ({@link PagePins}) are passed over.
 */
final class ClockMemTier implements MemTier {
  private static final class Slot {
    final ByteBuf page;
    volatile boolean referenced = true;

    Slot(ByteBuf page) {
      this.page = page;
    }
  }

  private final ConcurrentHashMap<PageId, Slot> slots = new ConcurrentHashMap<>();
  private final ArrayDeque<PageId> hand = new ArrayDeque<>();
  private final AtomicLong used = new AtomicLong();
  private final Consumer<PageId> onEvict;
  private volatile long capacity;
  private volatile PagePins pins = PagePins.NONE;

  ClockMemTier(long capacity, Consumer<PageId> onEvict) {
    this.capacity = capacity;
    this.onEvict = onEvict;
  }

  @Override
  public ByteBuf get(PageId id) {
    ByteBuf[] found = new ByteBuf[1];
    slots.computeIfPresent(
        id,
        (k, slot) -> {
          found[0] = slot.page.retainedDuplicate();
          slot.referenced = true;
          return slot;
        });
    return found[0];
  }

  @Override
  public boolean contains(PageId id) {
    return slots.containsKey(id);
  }

  @Override
  public void put(PageId id, ByteBuf page) {
    if (page.readableBytes() > capacity) {
      return;
    }
    ByteBuf mine = page.retainedDuplicate();
    if (slots.putIfAbsent(id, new Slot(mine)) != null) {
      mine.release();
      return;
    }
    used.addAndGet(mine.readableBytes());
    synchronized (hand) {
      hand.addLast(id);
    }
    evictOverCapacity();
  }

  /** Sweeps; a pinned page goes round again, as long as the sweep still finds others. */
  private void evictOverCapacity() {
    PagePins pinned = pins;
    synchronized (hand) {
      int pinnedInARow = 0;
      while (used.get() > capacity && !hand.isEmpty() && pinnedInARow <= hand.size()) {
        PageId id = hand.pollFirst();
        Slot slot = slots.get(id);
        if (slot == null) {
          continue;
        }
        if (pinned.pinned(id)) {
          pinnedInARow++;
          hand.addLast(id);
          continue;
        }
        pinnedInARow = 0;
        if (slot.referenced) {
          slot.referenced = false;
          hand.addLast(id);
        } else if (slots.remove(id, slot)) {
          release(slot);
          onEvict.accept(id);
        }
      }
    }
  }

  @Override
  public boolean replace(PageId id, ByteBuf page) {
    boolean[] replaced = new boolean[1];
    slots.computeIfPresent(
        id,
        (k, slot) -> {
          Slot fresh = new Slot(page.retainedDuplicate());
          fresh.referenced = slot.referenced;
          slot.page.release();
          replaced[0] = true;
          return fresh;
        });
    return replaced[0];
  }

  @Override
  public void remove(PageId id) {
    Slot slot = slots.remove(id);
    if (slot != null) {
      release(slot);
    }
  }

  private void release(Slot slot) {
    used.addAndGet(-slot.page.readableBytes());
    slot.page.release();
  }

  @Override
  public long used() {
    return used.get();
  }

  @Override
  public long capacity() {
    return capacity;
  }

  @Override
  public long pages() {
    return slots.size();
  }

  @Override
  public Stream<PageId> ids() {
    return slots.keySet().stream();
  }

  @Override
  public void pins(PagePins pins) {
    this.pins = pins;
  }

  @Override
  public void setCapacity(long bytes) {
    capacity = bytes;
    evictOverCapacity();
  }

  @Override
  public void close() {
    for (PageId id : slots.keySet()) {
      remove(id);
    }
    synchronized (hand) {
      hand.clear();
    }
  }
}
