package io.strata.core.ufs;

import io.strata.core.status.StrataException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/** Opens the under-storage a URI names. */
public final class UfsFactory {
  private UfsFactory() {}

  public static UnderFileSystem open(String uri) {
    return open(uri, LocalUnderFileSystem.DEFAULT_TEMP_MAX_AGE);
  }

  /**
   * Opens the under-storage {@code uri} names; a write's temporary file untouched for {@code
   * tempMaxAge} is taken for a dead writer's and removed.
   */
  public static UnderFileSystem open(String uri, Duration tempMaxAge) {
    return switch (scheme(uri)) {
      case "file" -> new LocalUnderFileSystem(localPath(uri), tempMaxAge, Clock.systemUTC());
      default ->
          throw StrataException.invalidArgument(
              "unsupported under-storage '" + uri + "' (supported: a local folder or file:// URI)");
    };
  }

  /** The canonical form of a UFS URI: a bare local folder becomes {@code file:///folder}. */
  public static String normalize(String uri) {
    return scheme(uri).equals("file")
        ? localPath(uri).toUri().toString().replaceAll("/$", "")
        : uri;
  }

  private static String scheme(String uri) {
    if (uri.isEmpty()) {
      throw StrataException.invalidArgument("empty under-storage URI");
    }
    int colon = uri.indexOf(':');
    int slash = uri.indexOf('/');
    return colon > 0 && (slash < 0 || colon < slash) ? uri.substring(0, colon) : "file";
  }

  private static Path localPath(String uri) {
    try {
      Path p = uri.startsWith("file:") ? Path.of(new URI(uri)) : Path.of(uri);
      return p.toAbsolutePath().normalize();
    } catch (URISyntaxException | IllegalArgumentException e) {
      throw StrataException.invalidArgument(
          "malformed under-storage URI '" + uri + "': " + e.getMessage());
    }
  }
}
