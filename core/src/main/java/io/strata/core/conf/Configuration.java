package io.strata.core.conf;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The effective configuration of one process: every key's value and the source it came from.
 *
 * <p>Values are held as text and parsed on first read; a value may refer to other keys as
 * {@code ${key}}, resolved when read. Every value is validated when it is set, so a bad value
 * fails where it enters, with a message naming the key and its origin.
 *
 * <p>Thread-safe: settings are replaced copy-on-write and reads never lock.
 */
public final class Configuration {
  private static final Pattern REFERENCE = Pattern.compile("\\$\\{([^}]+)}");
  private static final int MAX_REFERENCE_DEPTH = 16;

  /** A value set explicitly, with its source and a human-readable origin (file, variable). */
  public record Setting(String value, Source source, String origin) {}

  private volatile Map<String, Setting> settings = Map.of();
  private final Map<ConfKey<?>, Object> parsed = new ConcurrentHashMap<>();

  /** A configuration of defaults only. */
  public Configuration() {}

  private Configuration(Map<String, Setting> settings) {
    this.settings = settings;
  }

  public <T> T get(ConfKey<T> key) {
    @SuppressWarnings("unchecked")
    T value = (T) parsed.computeIfAbsent(key, k -> k.parse(resolved(k)));
    return value;
  }

  /** The value as text with references resolved, as a person would write it. */
  public String getText(ConfKey<?> key) {
    return resolved(key);
  }

  public Source source(ConfKey<?> key) {
    Setting s = settings.get(key.name());
    return s == null ? Source.DEFAULT : s.source();
  }

  /** Where the value came from, e.g. "/opt/strata/conf/strata-site.properties" or "STRATA_HOME". */
  public String origin(ConfKey<?> key) {
    Setting s = settings.get(key.name());
    return s == null ? Source.DEFAULT.label() : s.origin();
  }

  public boolean isSet(ConfKey<?> key) {
    return settings.containsKey(key.name());
  }

  /**
   * Sets {@code key} to {@code value} from {@code source}; a source of lower precedence than the
   * current one does not override it. Throws INVALID_ARGUMENT, changing nothing, if the value
   * (or a value that refers to it) does not parse.
   */
  public synchronized void set(ConfKey<?> key, String value, Source source, String origin) {
    Setting current = settings.get(key.name());
    if (current != null && current.source().compareTo(source) > 0) {
      return;
    }
    Map<String, Setting> next = new HashMap<>(settings);
    next.put(key.name(), new Setting(value, source, origin));
    Configuration candidate = new Configuration(next);
    candidate.validate(key, origin);
    settings = next;
    parsed.clear();
  }

  public void set(ConfKey<?> key, String value) {
    set(key, value, Source.RUNTIME, Source.RUNTIME.label());
  }

  /** An independent copy; later changes to either do not show in the other. */
  public Configuration copy() {
    return new Configuration(settings);
  }

  public Map<String, Setting> explicitSettings() {
    return Map.copyOf(settings);
  }

  /** Checks that every key parses; run once after loading so that mistakes fail at start. */
  public void validateAll() {
    for (ConfKey<?> key : KeyRegistry.all()) {
      validate(key, origin(key));
    }
  }

  private void validate(ConfKey<?> key, String origin) {
    String text = resolved(key);
    try {
      key.parse(text);
    } catch (IllegalArgumentException e) {
      throw ConfErrors.badValue(key, text, origin, e.getMessage());
    }
  }

  private String resolved(ConfKey<?> key) {
    return resolve(key, raw(key), 0);
  }

  private String raw(ConfKey<?> key) {
    Setting s = settings.get(key.name());
    return s == null ? key.defaultValue() : s.value();
  }

  private String resolve(ConfKey<?> owner, String text, int depth) {
    if (text.indexOf('$') < 0) {
      return text;
    }
    if (depth > MAX_REFERENCE_DEPTH) {
      throw ConfErrors.badValue(owner, text, origin(owner), "references nest too deep (a cycle?)");
    }
    Matcher m = REFERENCE.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      ConfKey<?> ref = KeyRegistry.require(m.group(1), "the value of " + owner.name());
      m.appendReplacement(out, Matcher.quoteReplacement(resolve(ref, raw(ref), depth + 1)));
    }
    m.appendTail(out);
    return out.toString();
  }
}
