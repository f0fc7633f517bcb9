package io.strata.core.conf;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * One configuration key: its name, type, default, scope, whether it may change while the process
 * runs, and what it does. Keys are declared once, as constants of the {@code *Keys} classes that
 * {@link KeyRegistry} gathers; code reads values only through these constants.
 *
 * <p>The default is text, so it may refer to other keys as {@code ${strata.home}}.
 */
public final class ConfKey<T> {
  private final String name;
  private final ConfType<T> type;
  private final String defaultValue;
  private final Scope scope;
  private final boolean dynamic;
  private final String description;
  private final Predicate<T> check;
  private final String checkMessage;

  private ConfKey(Builder<T> b) {
    this.name = b.name;
    this.type = b.type;
    this.defaultValue = Objects.requireNonNull(b.defaultValue, () -> b.name + " needs a default");
    this.scope = Objects.requireNonNull(b.scope, () -> b.name + " needs a scope");
    this.dynamic = b.dynamic;
    this.description = Objects.requireNonNull(b.description, () -> b.name + " needs a description");
    this.check = b.check;
    this.checkMessage = b.checkMessage;
  }

  public static Builder<String> string(String name) {
    return new Builder<>(name, ConfType.STRING);
  }

  public static Builder<Integer> integer(String name) {
    return new Builder<>(name, ConfType.INT);
  }

  public static Builder<Long> longKey(String name) {
    return new Builder<>(name, ConfType.LONG);
  }

  public static Builder<Boolean> bool(String name) {
    return new Builder<>(name, ConfType.BOOLEAN);
  }

  public static Builder<Duration> duration(String name) {
    return new Builder<>(name, ConfType.DURATION);
  }

  public static Builder<Long> bytes(String name) {
    return new Builder<>(name, ConfType.BYTES);
  }

  public static Builder<List<String>> list(String name) {
    return new Builder<>(name, ConfType.LIST);
  }

  public static <E extends Enum<E>> Builder<E> enumKey(String name, Class<E> type) {
    return new Builder<>(name, ConfType.enumOf(type));
  }

  public String name() {
    return name;
  }

  public ConfType<T> type() {
    return type;
  }

  public String defaultValue() {
    return defaultValue;
  }

  public Scope scope() {
    return scope;
  }

  public boolean isDynamic() {
    return dynamic;
  }

  public String description() {
    return description;
  }

  /**
   * The environment variable that sets this key: {@code strata.worker.page.size} is
   * STRATA_WORKER_PAGE_SIZE.
   */
  public String environmentName() {
    return name.toUpperCase(java.util.Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  /** Whether values are checked beyond their type (bounds, a format). */
  public boolean isChecked() {
    return check != null;
  }

  /** Parses and checks a value; throws IllegalArgumentException saying what was expected. */
  T parse(String text) {
    T value = type.parse(text);
    if (check != null && !check.test(value)) {
      throw new IllegalArgumentException(checkMessage);
    }
    return value;
  }

  @Override
  public String toString() {
    return name;
  }

  /** Builds a key; every key needs a default, a scope and a description. */
  public static final class Builder<T> {
    private final String name;
    private final ConfType<T> type;
    private String defaultValue;
    private Scope scope;
    private boolean dynamic;
    private String description;
    private Predicate<T> check;
    private String checkMessage;

    private Builder(String name, ConfType<T> type) {
      this.name = name;
      this.type = type;
    }

    public Builder<T> defaultValue(String value) {
      this.defaultValue = value;
      return this;
    }

    public Builder<T> scope(Scope value) {
      this.scope = value;
      return this;
    }

    public Builder<T> dynamic() {
      this.dynamic = true;
      return this;
    }

    public Builder<T> description(String value) {
      this.description = value;
      return this;
    }

    /** A constraint beyond the type, with the message shown when a value breaks it. */
    public Builder<T> check(Predicate<T> predicate, String message) {
      this.check = predicate;
      this.checkMessage = message;
      return this;
    }

    public ConfKey<T> build() {
      return new ConfKey<>(this);
    }
  }
}
