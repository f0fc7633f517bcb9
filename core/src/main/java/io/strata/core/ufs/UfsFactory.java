package io.strata.core.ufs;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * Opens the under-storage a URI names through the driver ({@link UnderFileSystemProvider}) that
 * handles its scheme: the one that declares it, else the first that opens it as another scheme.
 * Drivers are those on the class path (ServiceLoader), the local one always among them.
 */
public final class UfsFactory {
  /** Where a scheme's driver comes from when it is missing: names for the one-line error. */
  private static final Map<String, String> KNOWN_DRIVERS =
      Map.of(
          "s3", "s3",
          "hdfs", "hdfs",
          "webhdfs", "hdfs",
          "viewfs", "hdfs",
          "gs", "hdfs",
          "abfs", "hdfs",
          "abfss", "hdfs",
          "s3a", "hdfs");

  private static final List<UnderFileSystemProvider> PROVIDERS = load();

  private UfsFactory() {}

  public static UnderFileSystem open(String uri) {
    return open(uri, Map.of(), LocalUnderFileSystem.DEFAULT_TEMP_MAX_AGE);
  }

  /**
   * Opens the under-storage {@code uri} names, with a mount's {@code options}; a local write's
   * temporary file untouched for {@code tempMaxAge} is taken for a dead writer's and removed.
   * Opening touches no network: {@link UnderFileSystem#getStatus} of the root checks that the store
   * answers.
   */
  public static UnderFileSystem open(String uri, Map<String, String> options, Duration tempMaxAge) {
    return provider(uri).open(uri, options, tempMaxAge);
  }

  /**
   * Whether the store {@code uri} names lists a whole tree in one paged listing ({@link
   * UnderFileSystem#listFiles}): object stores, whose folders are only key prefixes.
   */
  public static boolean listsFlat(String uri) {
    return provider(uri).listsFlat();
  }

  /** The canonical form of a UFS URI: a bare local folder becomes {@code file:///folder}. */
  public static String normalize(String uri) {
    return provider(uri).normalize(uri);
  }

  /** The drivers on this class path, the local one first. */
  public static List<UnderFileSystemProvider> providers() {
    return PROVIDERS;
  }

  /** The driver for {@code uri}'s scheme, if one is on this class path. */
  public static Optional<UnderFileSystemProvider> find(String uri) {
    String scheme = scheme(uri);
    for (UnderFileSystemProvider p : PROVIDERS) {
      if (p.schemes().contains(scheme)) {
        return Optional.of(p);
      }
    }
    String driver = KNOWN_DRIVERS.get(scheme);
    if (driver != null && !present(driver)) {
      return Optional.empty(); // its driver is missing: never let another take it by chance
    }
    for (UnderFileSystemProvider p : PROVIDERS) {
      if (p.opensOther(scheme)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /**
   * The driver for {@code uri}, or INVALID_ARGUMENT in one line: which driver is missing for a
   * scheme Strata knows, or which drivers are here for one it does not.
   */
  public static UnderFileSystemProvider provider(String uri) {
    return find(uri).orElseThrow(() -> new StrataException(StatusCode.INVALID_ARGUMENT, why(uri)));
  }

  /** Why no driver opens {@code uri}: one line. */
  public static String why(String uri) {
    String scheme = scheme(uri);
    String present =
        PROVIDERS.stream()
            .map(p -> p.name() + " (" + p.describe() + ")")
            .collect(Collectors.joining(", "));
    String driver = KNOWN_DRIVERS.get(scheme);
    if (driver == null) {
      return "unsupported under-storage '"
          + uri
          + "': no driver opens "
          + scheme
          + "://; drivers here: "
          + present;
    }
    if (!present(driver)) {
      return "no under-storage driver for "
          + scheme
          + ":// on this class path: the "
          + driver
          + " driver (lib/ufs/"
          + driver
          + "/) is missing; drivers here: "
          + present;
    }
    return "the "
        + driver
        + " driver finds no client for "
        + scheme
        + ":// on its class path (a Hadoop connector's jar goes in lib/ufs/"
        + driver
        + "/)";
  }

  private static boolean present(String driver) {
    return PROVIDERS.stream().anyMatch(p -> p.name().equals(driver));
  }

  private static String scheme(String uri) {
    if (uri.isEmpty()) {
      throw StrataException.invalidArgument("empty under-storage URI");
    }
    int colon = uri.indexOf(':');
    int slash = uri.indexOf('/');
    return colon > 0 && (slash < 0 || colon < slash) ? uri.substring(0, colon) : "file";
  }

  private static List<UnderFileSystemProvider> load() {
    List<UnderFileSystemProvider> found = new ArrayList<>();
    ServiceLoader.load(UnderFileSystemProvider.class, UfsFactory.class.getClassLoader())
        .forEach(found::add);
    found.sort(
        Comparator.comparing((UnderFileSystemProvider p) -> !p.name().equals("local"))
            .thenComparing(UnderFileSystemProvider::name));
    return List.copyOf(found);
  }
}
