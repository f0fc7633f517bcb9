package io.strata.master.service;

import io.strata.core.proto.WorkerUsage;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

/**
 * When the leader last heard from each worker, and what it reported. Leader-local memory, never
 * journaled: only the transitions it causes (LOST, back to LIVE) are log entries. Thread-safe.
 */
public final class WorkerLiveness {
  /**
   * A heartbeat: when it arrived (monotonic ns), the usage, the configuration hash, and the
   * versions of the mount table and of the pins and TTLs it carried (-1: not reported yet).
   */
  public record Beat(
      long nanos, WorkerUsage usage, String confHash, long mountTableVersion, long policyVersion) {
    static Beat none(long nanos) {
      return new Beat(nanos, WorkerUsage.getDefaultInstance(), "", -1, -1);
    }
  }

  private final Map<String, Beat> beats = new ConcurrentHashMap<>();
  private final LongSupplier nanoTime;

  public WorkerLiveness(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
  }

  public void beat(
      String workerId,
      WorkerUsage usage,
      String confHash,
      long mountTableVersion,
      long policyVersion) {
    beats.put(
        workerId,
        new Beat(nanoTime.getAsLong(), usage, confHash, mountTableVersion, policyVersion));
  }

  /**
   * How many of {@code workerIds} have not reported applying {@code version} of what {@code
   * applied} reads from a beat.
   */
  public int behind(Collection<String> workerIds, ToLongFunction<Beat> applied, long version) {
    return (int)
        workerIds.stream()
            .filter(
                id -> {
                  Beat b = beats.get(id);
                  return b == null || applied.applyAsLong(b) < version;
                })
            .count();
  }

  /** A worker removed from the membership: its beats are of no one now. */
  public void forget(String workerId) {
    beats.remove(workerId);
  }

  public Optional<Beat> last(String workerId) {
    return Optional.ofNullable(beats.get(workerId));
  }

  public long ageMillis(Beat beat) {
    return (nanoTime.getAsLong() - beat.nanos()) / 1_000_000;
  }

  /**
   * A new leader knows nothing of heartbeats: every worker gets a full timeout from now to show up
   * before it can be marked LOST.
   */
  public void startGracePeriod(Collection<String> workerIds) {
    beats.clear();
    for (String id : workerIds) {
      beats.put(id, Beat.none(nanoTime.getAsLong()));
    }
  }

  /**
   * The workers among {@code candidates} silent for longer than {@code timeoutNanos}. One this
   * leader has no beat of yet (it registered while the grace period began, or its registration is
   * applied but its first beat not recorded) gets a full timeout from now, like any other.
   */
  public List<String> silent(Collection<String> candidates, long timeoutNanos) {
    long now = nanoTime.getAsLong();
    return candidates.stream()
        .filter(
            id -> {
              Beat b = beats.computeIfAbsent(id, k -> Beat.none(now));
              return now - b.nanos() > timeoutNanos;
            })
        .toList();
  }
}
