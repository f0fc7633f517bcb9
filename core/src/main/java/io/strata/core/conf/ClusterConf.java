package io.strata.core.conf;

import com.google.common.hash.Hasher;
import com.google.common.hash.Hashing;
import io.strata.core.status.StrataException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster-wide configuration overrides (set with {@code strata conf updateConf}): checking a
 * request before it is replicated, the hash every process compares to tell whether it is in sync,
 * and applying a set of overrides to a process's configuration.
 */
public final class ClusterConf {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterConf.class);

  private ClusterConf() {}

  /**
   * Checks a whole update: every key known, every value of its type, every key dynamic. Refuses all
   * of it, with one line naming each bad key, if any part is wrong.
   */
  public static void validateUpdate(Map<String, String> values) {
    if (values.isEmpty()) {
      throw StrataException.invalidArgument("nothing to update: give KEY=VALUE pairs");
    }
    List<String> problems = new ArrayList<>();
    Configuration scratch = new Configuration();
    for (Map.Entry<String, String> e : new TreeMap<>(values).entrySet()) {
      ConfKey<?> key = KeyRegistry.find(e.getKey()).orElse(null);
      if (key == null) {
        problems.add(
            "unknown key '"
                + e.getKey()
                + "'"
                + Suggestions.closest(e.getKey(), names())
                    .map(s -> " (did you mean '" + s + "'?)")
                    .orElse(""));
      } else if (!key.isDynamic()) {
        problems.add(
            key.name()
                + " cannot change while Strata runs: set it in strata-site.properties and restart");
      } else {
        try {
          scratch.set(key, e.getValue(), Source.CLUSTER, "update");
        } catch (StrataException bad) {
          problems.add(bad.getMessage());
        }
      }
    }
    if (!problems.isEmpty()) {
      throw StrataException.invalidArgument("nothing changed: " + String.join("; ", problems));
    }
  }

  /** Checks the keys of an unset: each must be known. */
  public static void validateUnset(Collection<String> keys) {
    List<String> unknown = keys.stream().filter(k -> KeyRegistry.find(k).isEmpty()).toList();
    if (keys.isEmpty() || !unknown.isEmpty()) {
      throw StrataException.invalidArgument(
          keys.isEmpty()
              ? "nothing to unset: give keys"
              : "nothing changed: unknown key " + unknown);
    }
  }

  /**
   * A short hash of a set of overrides; equal sets give equal hashes on every process. Only change
   * detection, so no cryptographic digest: that would load the JDK's security providers in every
   * shell command.
   */
  public static String hash(Map<String, String> overrides) {
    Hasher h = Hashing.murmur3_128().newHasher();
    new TreeMap<>(overrides)
        .forEach(
            (k, v) ->
                h.putString(k, StandardCharsets.UTF_8)
                    .putByte((byte) '=')
                    .putString(v, StandardCharsets.UTF_8)
                    .putByte((byte) '\n'));
    return h.hash().toString().substring(0, 16);
  }

  /**
   * Makes {@code conf}'s cluster layer equal to {@code overrides}. Keys this process does not know
   * (a newer master) and values it cannot parse are skipped with a warning rather than failing the
   * process; listeners of changed keys run.
   */
  public static void apply(Configuration conf, Map<String, String> overrides, long version) {
    Map<ConfKey<?>, String> known = new HashMap<>();
    overrides.forEach(
        (name, value) -> {
          ConfKey<?> key = KeyRegistry.find(name).orElse(null);
          if (key == null) {
            LOG.warn(
                "ignoring cluster override of unknown key {} (is this process older than the masters?)",
                name);
            return;
          }
          try {
            new Configuration().set(key, value, Source.CLUSTER, "check");
            known.put(key, value);
          } catch (StrataException e) {
            LOG.warn("ignoring cluster override: {}", e.getMessage());
          }
        });
    conf.replaceCluster(known, "cluster configuration v" + version);
  }

  private static Collection<String> names() {
    return KeyRegistry.all().stream().map(ConfKey::name).toList();
  }
}
