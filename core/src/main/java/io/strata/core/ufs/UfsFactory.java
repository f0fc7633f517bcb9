package io.strata.core.ufs;

import io.strata.core.status.StrataException;
import io.strata.core.ufs.hdfs.HadoopSchemes;
import io.strata.core.ufs.hdfs.HdfsSettings;
import io.strata.core.ufs.hdfs.HdfsUnderFileSystem;
import io.strata.core.ufs.s3.S3Settings;
import io.strata.core.ufs.s3.S3UnderFileSystem;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/** Opens the under-storage a URI names. */
public final class UfsFactory {
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
    return switch (scheme(uri)) {
      case "file" -> {
        if (!options.isEmpty()) {
          throw StrataException.invalidArgument(
              "a local folder takes no mount options, not " + options.keySet());
        }
        yield new LocalUnderFileSystem(localPath(uri), tempMaxAge, Clock.systemUTC());
      }
      case "s3" -> new S3UnderFileSystem(uri, S3Settings.of(options));
      default -> {
        if (!HadoopSchemes.known(scheme(uri))) {
          throw StrataException.invalidArgument(
              "unsupported under-storage '"
                  + uri
                  + "' (supported: a local folder or file:// URI, s3://bucket/prefix,"
                  + " hdfs://namenode:port/path and other Hadoop-compatible stores whose"
                  + " client is on the class path)");
        }
        yield new HdfsUnderFileSystem(uri, HdfsSettings.of(options));
      }
    };
  }

  /**
   * Whether the store {@code uri} names lists a whole tree in one paged listing ({@link
   * UnderFileSystem#listFiles}): object stores, whose folders are only key prefixes.
   */
  public static boolean listsFlat(String uri) {
    return scheme(uri).equals("s3");
  }

  /** The canonical form of a UFS URI: a bare local folder becomes {@code file:///folder}. */
  public static String normalize(String uri) {
    return switch (scheme(uri)) {
      case "file" -> localPath(uri).toUri().toString().replaceAll("/$", "");
      case "s3" -> S3UnderFileSystem.normalize(uri);
      default -> HadoopSchemes.known(scheme(uri)) ? HdfsUnderFileSystem.normalize(uri) : uri;
    };
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
