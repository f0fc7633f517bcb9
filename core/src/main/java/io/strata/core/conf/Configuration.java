package io.strata.core.conf;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The effective configuration of one process: every key's value and the source it came from.
 *
 * <p>Each source keeps its own layer, so removing a cluster override brings back what the site file
 * or the environment said. Values are held as text and parsed on first read; a value may refer to
 * other keys as {@code ${key}}, resolved when read. Every value is validated when it is set, so a
 * bad value fails where it enters, with a message naming the key and its origin.
 *
 * <p>Listeners registered for a key run after its effective value changed, on the thread that
 * changed it. Thread-safe: layers are replaced copy-on-write and reads never lock.
 */
public final class Configuration {
  private static final Pattern REFERENCE = Pattern.compile("\\$\\{([^}]+)}");
  private static final int MAX_REFERENCE_DEPTH = 16;

  /** A value set explicitly, with its source and a human-readable origin (file, variable). */
  public record Setting(String value, Source source, String origin) {}

  private volatile Map<String, EnumMap<Source, Setting>> layers = Map.of();
  private final Map<ConfKey<?>, Object> parsed = new ConcurrentHashMap<>();
  private final Map<ConfKey<?>, List<Consumer<Object>>> listeners = new ConcurrentHashMap<>();

  /** A configuration of defaults only. */
  public Configuration() {}

  private Configuration(Map<String, EnumMap<Source, Setting>> layers) {
    this.layers = layers;
  }

  public <T> T get(ConfKey<T> key) {
    @SuppressWarnings("unchecked")
    T value = (T) parsed.computeIfAbsent(key, k -> k.parse(resolved(layers, k)));
    return value;
  }

  /** The value as text with references resolved, as a person would write it. */
  public String getText(ConfKey<?> key) {
    return resolved(layers, key);
  }

  public Source source(ConfKey<?> key) {
    Setting s = top(layers, key);
    return s == null ? Source.DEFAULT : s.source();
  }

  /** Where the value came from, e.g. "/opt/strata/conf/strata-site.properties" or "STRATA_HOME". */
  public String origin(ConfKey<?> key) {
    Setting s = top(layers, key);
    return s == null ? Source.DEFAULT.label() : s.origin();
  }

  public boolean isSet(ConfKey<?> key) {
    return layers.containsKey(key.name());
  }

  /**
   * Sets {@code key} from {@code source}. The value shows only if no source of higher precedence
   * sets the key too. Throws INVALID_ARGUMENT, changing nothing, if the value (or a value that
   * refers to it) does not parse.
   */
  public void set(ConfKey<?> key, String value, Source source, String origin) {
    update(Map.of(key, new Setting(value, source, origin)), List.of());
  }

  public void set(ConfKey<?> key, String value) {
    set(key, value, Source.RUNTIME, Source.RUNTIME.label());
  }

  /**
   * Removes what {@code source} said of {@code key}; a lower source (or the default) shows again.
   */
  public void unset(ConfKey<?> key, Source source) {
    update(Map.of(), List.of(new Removal(key, source)));
  }

  /**
   * Makes the CLUSTER layer exactly {@code overrides} (key name to value), at once: keys set before
   * and absent now are removed. Validated first; nothing changes if a value is bad.
   */
  public void replaceCluster(Map<ConfKey<?>, String> overrides, String origin) {
    Map<ConfKey<?>, Setting> sets = new HashMap<>();
    overrides.forEach((k, v) -> sets.put(k, new Setting(v, Source.CLUSTER, origin)));
    List<Removal> removals = new ArrayList<>();
    layers.forEach(
        (name, bysource) -> {
          ConfKey<?> key = KeyRegistry.find(name).orElse(null);
          if (key != null && bysource.containsKey(Source.CLUSTER) && !overrides.containsKey(key)) {
            removals.add(new Removal(key, Source.CLUSTER));
          }
        });
    update(sets, removals);
  }

  /** The CLUSTER layer: key name to value. */
  public Map<String, String> clusterOverrides() {
    Map<String, String> out = new HashMap<>();
    layers.forEach(
        (name, bysource) -> {
          Setting s = bysource.get(Source.CLUSTER);
          if (s != null) {
            out.put(name, s.value());
          }
        });
    return out;
  }

  private record Removal(ConfKey<?> key, Source source) {}

  private void update(Map<ConfKey<?>, Setting> sets, List<Removal> removals) {
    List<ConfKey<?>> changed = new ArrayList<>();
    synchronized (this) {
      Map<String, EnumMap<Source, Setting>> next = new HashMap<>(layers);
      for (Map.Entry<ConfKey<?>, Setting> e : sets.entrySet()) {
        EnumMap<Source, Setting> byKey = new EnumMap<>(Source.class);
        byKey.putAll(next.getOrDefault(e.getKey().name(), new EnumMap<>(Source.class)));
        byKey.put(e.getValue().source(), e.getValue());
        next.put(e.getKey().name(), byKey);
      }
      for (Removal r : removals) {
        EnumMap<Source, Setting> old = next.get(r.key().name());
        if (old != null && old.containsKey(r.source())) {
          EnumMap<Source, Setting> byKey = new EnumMap<>(old);
          byKey.remove(r.source());
          if (byKey.isEmpty()) {
            next.remove(r.key().name());
          } else {
            next.put(r.key().name(), byKey);
          }
        }
      }
      for (ConfKey<?> key : sets.keySet()) {
        validate(next, key);
      }
      Map<String, EnumMap<Source, Setting>> before = layers;
      layers = next;
      parsed.clear();
      for (ConfKey<?> key : KeyRegistry.all()) {
        if (!Objects.equals(resolved(before, key), resolved(next, key))) {
          changed.add(key);
        }
      }
    }
    for (ConfKey<?> key : changed) {
      for (Consumer<Object> l : listeners.getOrDefault(key, List.of())) {
        l.accept(get(key));
      }
    }
  }

  /**
   * Runs {@code listener} with the new value each time the effective value of {@code key} changes.
   */
  public <T> void onChange(ConfKey<T> key, Consumer<T> listener) {
    @SuppressWarnings("unchecked")
    Consumer<Object> l = v -> listener.accept((T) v);
    listeners.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(l);
  }

  /** An independent copy of the values (not of the listeners). */
  public Configuration copy() {
    return new Configuration(layers);
  }

  /** The value each explicitly set key shows, with its source. */
  public Map<String, Setting> explicitSettings() {
    Map<String, Setting> out = new HashMap<>();
    layers.forEach((name, byKey) -> out.put(name, top(byKey)));
    return out;
  }

  /** Checks that every key parses; run once after loading so that mistakes fail at start. */
  public void validateAll() {
    for (ConfKey<?> key : KeyRegistry.all()) {
      validate(layers, key);
    }
  }

  private void validate(Map<String, EnumMap<Source, Setting>> candidate, ConfKey<?> key) {
    String text = resolved(candidate, key);
    try {
      key.parse(text);
    } catch (IllegalArgumentException e) {
      Setting s = top(candidate, key);
      throw ConfErrors.badValue(key, text, s == null ? "" : s.origin(), e.getMessage());
    }
  }

  private static Setting top(Map<String, EnumMap<Source, Setting>> layers, ConfKey<?> key) {
    EnumMap<Source, Setting> byKey = layers.get(key.name());
    return byKey == null ? null : top(byKey);
  }

  private static Setting top(EnumMap<Source, Setting> byKey) {
    Setting best = null;
    for (Setting s : byKey.values()) {
      best = s;
    }
    return best;
  }

  private static String resolved(Map<String, EnumMap<Source, Setting>> layers, ConfKey<?> key) {
    return resolve(layers, key, raw(layers, key), 0);
  }

  private static String raw(Map<String, EnumMap<Source, Setting>> layers, ConfKey<?> key) {
    Setting s = top(layers, key);
    return s == null ? key.defaultValue() : s.value();
  }

  private static String resolve(
      Map<String, EnumMap<Source, Setting>> layers, ConfKey<?> owner, String text, int depth) {
    if (text.indexOf('$') < 0) {
      return text;
    }
    if (depth > MAX_REFERENCE_DEPTH) {
      throw ConfErrors.badValue(owner, text, "", "references nest too deep (a cycle?)");
    }
    Matcher m = REFERENCE.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      ConfKey<?> ref = KeyRegistry.require(m.group(1), "the value of " + owner.name());
      m.appendReplacement(
          out, Matcher.quoteReplacement(resolve(layers, ref, raw(layers, ref), depth + 1)));
    }
    m.appendTail(out);
    return out.toString();
  }
}
