package io.strata.fuse;

import io.strata.core.conf.ConfKey;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.FuseKeys;
import io.strata.core.conf.KeyRegistry;
import io.strata.core.conf.Scope;
import io.strata.core.conf.Source;
import io.strata.core.conf.UserKeys;
import io.strata.core.status.StrataException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A mount's options as FUSE users write them ({@code -o ro,attr_timeout=60,immutable}, and what
 * /etc/fstab hands a mount helper), applied to the mount's own configuration. Timeouts are in
 * seconds, as for every FUSE file system; any client key may be given as {@code strata.KEY=VALUE}.
 * Options of mount(8) that concern it alone ({@code defaults}, {@code _netdev}, {@code noauto},
 * {@code x-systemd.*}...) are ignored; any other unknown option is refused, naming it.
 */
final class MountOptions {
  /** Options for mount(8) or systemd, not for the file system. */
  private static final Set<String> IGNORED =
      Set.of("defaults", "_netdev", "nofail", "noauto", "auto", "user", "users", "nouser", "rw");

  /** Options the kernel applies to the mount itself: passed on to libfuse as they are. */
  static final Set<String> KERNEL = Set.of("nosuid", "nodev", "noexec", "noatime");

  static final String KNOWN =
      "ro, rw, attr_timeout=SECONDS, entry_timeout=SECONDS, allow_other, immutable, threads=N, engine=strata|jnr, "
          + String.join(", ", KERNEL)
          + ", strata.KEY=VALUE";

  /** What the options ask of the mount beyond its configuration. */
  record Parsed(boolean readOnly, boolean allowOther, List<String> kernel) {}

  private MountOptions() {}

  /** Applies {@code options} (comma-separated) to {@code conf}; refuses any it does not know. */
  static Parsed apply(String options, Configuration conf) {
    boolean readOnly = false;
    boolean allowOther = false;
    List<String> kernel = new ArrayList<>();
    for (String option : options.split(",", -1)) {
      String o = option.trim();
      int eq = o.indexOf('=');
      String name = eq < 0 ? o : o.substring(0, eq);
      String value = eq < 0 ? null : o.substring(eq + 1);
      if (o.isEmpty() || IGNORED.contains(o) || o.startsWith("x-")) {
        continue;
      }
      switch (name) {
        case "ro" -> readOnly = flag(o, value);
        case "allow_other" -> allowOther = flag(o, value);
        case "immutable" -> {
          flag(o, value);
          set(conf, UserKeys.METADATA_CACHE_IMMUTABLE, "true");
        }
        case "attr_timeout" -> set(conf, FuseKeys.ATTR_TIMEOUT, seconds(o, value));
        case "entry_timeout" -> set(conf, FuseKeys.ENTRY_TIMEOUT, seconds(o, value));
        case "threads" -> set(conf, FuseKeys.THREADS, required(o, value));
        case "engine" -> set(conf, FuseKeys.ENGINE, required(o, value));
        default -> {
          if (KERNEL.contains(o)) {
            kernel.add(o);
          } else if (name.startsWith("strata.") && value != null) {
            ConfKey<?> key = KeyRegistry.require(name, "mount option");
            if (!key.scope().appliesTo(Scope.CLIENT)) {
              throw StrataException.invalidArgument(
                  "mount option "
                      + name
                      + " is a "
                      + key.scope()
                      + " key; a mount reads only "
                      + "client keys");
            }
            set(conf, key, value);
          } else {
            throw StrataException.invalidArgument(
                "unknown mount option '" + o + "' (known: " + KNOWN + ")");
          }
        }
      }
    }
    return new Parsed(readOnly, allowOther, List.copyOf(kernel));
  }

  private static boolean flag(String option, String value) {
    if (value != null) {
      throw StrataException.invalidArgument("mount option " + option + " takes no value");
    }
    return true;
  }

  private static String required(String option, String value) {
    if (value == null || value.isEmpty()) {
      throw StrataException.invalidArgument("mount option " + option + " needs a value");
    }
    return value;
  }

  /** FUSE's timeouts are seconds, with a fraction ("0.5"); a duration ("500ms") is taken too. */
  private static String seconds(String option, String value) {
    String v = required(option, value);
    try {
      double s = Double.parseDouble(v);
      if (s < 0 || Double.isNaN(s) || Double.isInfinite(s)) {
        throw StrataException.invalidArgument(option + ": must be 0 or more seconds");
      }
      return Math.round(s * 1000) + "ms";
    } catch (NumberFormatException notANumber) {
      return v;
    }
  }

  private static void set(Configuration conf, ConfKey<?> key, String value) {
    conf.set(key, value, Source.RUNTIME, "mount option");
  }
}
