package io.strata.core.conf;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Every configuration key, gathered from the {@code *Keys} holder classes. The holders never refer
 * back here, so class initialisation has no cycle: a new holder only has to be listed in {@link
 * #HOLDERS}.
 */
public final class KeyRegistry {
  private static final Class<?>[] HOLDERS = {
    CommonKeys.class,
    MasterKeys.class,
    WorkerKeys.class,
    UserKeys.class,
    FuseKeys.class,
    SecurityKeys.class,
    S3Keys.class,
  };

  private static final Map<String, ConfKey<?>> KEYS = gather();

  private KeyRegistry() {}

  public static Collection<ConfKey<?>> all() {
    return KEYS.values();
  }

  public static Optional<ConfKey<?>> find(String name) {
    return Optional.ofNullable(KEYS.get(name));
  }

  /** The key named {@code name}, or an error naming it and the closest known key. */
  public static ConfKey<?> require(String name, String where) {
    ConfKey<?> key = KEYS.get(name);
    if (key == null) {
      throw ConfErrors.unknownKey(name, where, Suggestions.closest(name, KEYS.keySet()));
    }
    return key;
  }

  private static Map<String, ConfKey<?>> gather() {
    Map<String, ConfKey<?>> keys = new LinkedHashMap<>();
    for (Class<?> holder : HOLDERS) {
      for (Field field : holder.getDeclaredFields()) {
        if (field.getType() == ConfKey.class && Modifier.isStatic(field.getModifiers())) {
          try {
            ConfKey<?> key = (ConfKey<?>) field.get(null);
            if (keys.put(key.name(), key) != null) {
              throw new IllegalStateException("configuration key declared twice: " + key.name());
            }
          } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
          }
        }
      }
    }
    return Collections.unmodifiableMap(keys);
  }
}
