package io.strata.core.ufs;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An under-storage driver, found by {@link java.util.ServiceLoader} on the class path (a jar in
 * {@code lib/ufs/<name>/} adds its schemes): what {@link UfsFactory} asks to open, normalise and
 * describe the URIs of the schemes it handles.
 */
public interface UnderFileSystemProvider {
  /** The driver's name, as in {@code lib/ufs/<name>/}: {@code local}, {@code s3}, {@code hdfs}. */
  String name();

  /** The URI schemes this driver declares; no other driver is asked about them. */
  Set<String> schemes();

  /**
   * Whether this driver also opens {@code scheme}, declared by no driver (the HDFS driver opens
   * whatever Hadoop FileSystem is on the class path: {@code gs}, {@code abfs}...).
   */
  default boolean opensOther(String scheme) {
    return false;
  }

  /** What its URIs look like, for messages and help: {@code s3://bucket/prefix}. */
  String describe();

  /** Mount options it takes, in the order help lists them. */
  List<UfsOption> options();

  /**
   * Opens the store {@code uri} names with a mount's {@code options}, refusing unknown options in
   * one line. Touches no network: {@link UnderFileSystem#getStatus} of the root checks the store.
   *
   * @param tempMaxAge how long a write's temporary file may sit untouched before it is taken for a
   *     dead writer's (stores that write through temporary files)
   */
  UnderFileSystem open(String uri, Map<String, String> options, Duration tempMaxAge);

  /** The canonical form of {@code uri}: one store, one string (mount table keys compare them). */
  String normalize(String uri);

  /** Whether its stores list a whole tree in one paged listing: object stores, flat keys. */
  default boolean listsFlat() {
    return false;
  }
}
