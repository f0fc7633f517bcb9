package io.strata.testkit;

import io.strata.core.conf.ConfKey;
import java.util.LinkedHashMap;
import java.util.Map;

/** What every kind of test cluster is built from: how many processes, and what they serve. */
public abstract class ClusterBuilder<B extends ClusterBuilder<B>> {
  int masters = 1;
  int workers = 1;
  boolean domainSockets;
  String ssdQuota;
  final Map<String, String> overrides = new LinkedHashMap<>();

  ClusterBuilder() {}

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }

  public B masters(int n) {
    this.masters = n;
    return self();
  }

  public B workers(int n) {
    this.workers = n;
    return self();
  }

  /** Every worker also serves on a domain socket of its own in the cluster's folder. */
  public B domainSockets() {
    this.domainSockets = true;
    return self();
  }

  /** Every worker gets an SSD cache folder of its own in the cluster's folder, with this quota. */
  public B ssd(String quota) {
    this.ssdQuota = quota;
    return self();
  }

  /** Set on every process and client of the cluster. */
  public B property(ConfKey<?> key, String value) {
    overrides.put(key.name(), value);
    return self();
  }
}
