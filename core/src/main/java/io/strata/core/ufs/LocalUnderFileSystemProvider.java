package io.strata.core.ufs;

import io.strata.core.status.StrataException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The local driver: a folder on this host (or an NFS mount of it), {@code file://} or bare. */
public final class LocalUnderFileSystemProvider implements UnderFileSystemProvider {
  @Override
  public String name() {
    return "local";
  }

  @Override
  public Set<String> schemes() {
    return Set.of("file");
  }

  @Override
  public String describe() {
    return "a local folder or file:///folder";
  }

  @Override
  public List<UfsOption> options() {
    return List.of();
  }

  @Override
  public UnderFileSystem open(String uri, Map<String, String> options, Duration tempMaxAge) {
    if (!options.isEmpty()) {
      throw StrataException.invalidArgument(
          "a local folder takes no mount options, not " + options.keySet());
    }
    return new LocalUnderFileSystem(path(uri), tempMaxAge, Clock.systemUTC());
  }

  @Override
  public String normalize(String uri) {
    return path(uri).toUri().toString().replaceAll("/$", "");
  }

  private static Path path(String uri) {
    try {
      Path p = uri.startsWith("file:") ? Path.of(new URI(uri)) : Path.of(uri);
      return p.toAbsolutePath().normalize();
    } catch (URISyntaxException | IllegalArgumentException e) {
      throw StrataException.invalidArgument(
          "malformed under-storage URI '" + uri + "': " + e.getMessage());
    }
  }
}
