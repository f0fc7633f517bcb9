package io.strata.master.state;

import io.strata.core.conf.ClusterConf;
import io.strata.core.proto.ConfigView;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The cluster's configuration overrides: key to value, with a version that grows with every change
 * and a hash processes compare. Values were checked on the leader before they were journaled. Not
 * thread-safe: only the state machine touches it. An optional observer (the master's own
 * configuration) hears of every change, on every master.
 */
public final class ConfOverrides {
  private final TreeMap<String, String> values = new TreeMap<>();
  private long version;
  private Consumer<ConfigView> observer = v -> {};

  public void observe(Consumer<ConfigView> o) {
    this.observer = o;
    o.accept(view());
  }

  public ApplyResult set(Map<String, String> update) {
    boolean changed = false;
    for (Map.Entry<String, String> e : update.entrySet()) {
      changed |= !e.getValue().equals(values.put(e.getKey(), e.getValue()));
    }
    return changed ? changed() : ApplyResult.OK;
  }

  public ApplyResult unset(Collection<String> keys) {
    boolean changed = false;
    for (String k : keys) {
      changed |= values.remove(k) != null;
    }
    return changed ? changed() : ApplyResult.OK;
  }

  private ApplyResult changed() {
    version++;
    observer.accept(view());
    return ApplyResult.OK;
  }

  public ConfigView view() {
    return ConfigView.newBuilder()
        .putAllOverrides(values)
        .setVersion(version)
        .setHash(hash())
        .build();
  }

  public String hash() {
    return ClusterConf.hash(values);
  }

  public Map<String, String> values() {
    return values;
  }

  public long version() {
    return version;
  }

  void restore(Map<String, String> restored, long restoredVersion) {
    values.clear();
    values.putAll(restored);
    version = restoredVersion;
    observer.accept(view());
  }
}
