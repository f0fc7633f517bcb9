package io.strata.ufs.s3;

import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.UfsStatus;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Listings of a bucket under its mount's prefix: a folder's children (with a delimiter, a page at a
 * time as the caller reads) and a whole tree's files (without one, in key order). Folder markers
 * ("folder/" objects) are never files.
 */
final class S3Listings {
  private static final Logger LOG = LoggerFactory.getLogger(S3Listings.class);

  /** The most keys S3 returns in one listing. */
  private static final int MAX_KEYS = 1000;

  private final S3Client s3;
  private final S3Location location;
  private final S3Bucket bucket;

  S3Listings(S3Client s3, S3Location location, S3Bucket bucket) {
    this.s3 = s3;
    this.location = location;
    this.bucket = bucket;
  }

  /** The children of folder {@code path}, its later pages fetched as the caller reads on. */
  Stream<UfsStatus> folder(StrataPath path) {
    String folder = location.folderPrefix(path);
    Iterator<ListObjectsV2Response> pages =
        new Translated<>(
            s3.listObjectsV2Paginator(
                    r -> r.bucket(location.bucket()).prefix(folder).delimiter("/"))
                .iterator(),
            folder);
    ListObjectsV2Response first = pages.next();
    if (!path.isRoot() && first.contents().isEmpty() && first.commonPrefixes().isEmpty()) {
      if (bucket.head(location.key(path)) != null) {
        throw new StrataException(StatusCode.NOT_A_DIRECTORY, path + " is not a directory");
      }
      throw StrataException.notFound(path + " does not exist");
    }
    // Later pages are fetched as the caller reads on: a huge folder is never held whole.
    Stream<ListObjectsV2Response> rest =
        StreamSupport.stream(
            Spliterators.spliteratorUnknownSize(pages, Spliterator.ORDERED), false);
    return Stream.concat(Stream.of(first), rest).flatMap(page -> children(folder, page));
  }

  /**
   * A page of the files of {@code dir}'s tree ({@link
   * io.strata.core.ufs.UnderFileSystem#listFiles}): one ListObjectsV2 without a delimiter per 1,000
   * files, however many folders hold them.
   */
  List<UfsStatus> tree(StrataPath dir, String startAfter, int limit) {
    String folder = location.folderPrefix(dir);
    List<UfsStatus> files = new ArrayList<>();
    String after = startAfter.isEmpty() ? null : folder + startAfter;
    String token = null;
    do {
      int want = Math.min(MAX_KEYS, limit - files.size());
      String from = after;
      String page = token;
      ListObjectsV2Response r;
      try {
        r =
            s3.listObjectsV2(
                b ->
                    b.bucket(location.bucket())
                        .prefix(folder)
                        .maxKeys(want)
                        .startAfter(page == null ? from : null)
                        .continuationToken(page));
      } catch (SdkException e) {
        throw error(e, folder);
      }
      for (S3Object o : r.contents()) {
        String name = o.key().substring(folder.length());
        if (!o.key().endsWith("/") && pathFor(folder, name)) {
          files.add(S3Bucket.file(name, o.eTag(), o.size(), o.lastModified()));
        }
      }
      token = Boolean.TRUE.equals(r.isTruncated()) ? r.nextContinuationToken() : null;
    } while (token != null && files.size() < limit);
    return files;
  }

  private Stream<UfsStatus> children(String folder, ListObjectsV2Response page) {
    Stream<UfsStatus> folders =
        page.commonPrefixes().stream()
            .map(p -> S3Location.childName(folder, p.prefix()))
            .filter(name -> pathFor(folder, name))
            .map(S3Bucket::folder);
    Stream<UfsStatus> files =
        page.contents().stream()
            .filter(o -> !o.key().equals(folder) && !o.key().endsWith("/"))
            .flatMap(
                o -> {
                  String name = S3Location.childName(folder, o.key());
                  return pathFor(folder, name)
                      ? Stream.of(S3Bucket.file(name, o.eTag(), o.size(), o.lastModified()))
                      : Stream.empty();
                });
    return Stream.concat(folders, files);
  }

  /**
   * Whether a listed key's {@code name} below {@code folder} is a path; if not, the key is left out
   * of the listing (one odd key must not make its folder unlistable, nor show as another path).
   */
  private boolean pathFor(String folder, String name) {
    if (S3Location.namesAPath(name)) {
      return true;
    }
    LOG.debug(
        "{}: key '{}{}' has no Strata path (empty, '.' or '..' component): left out",
        location.uri(),
        folder,
        name);
    return false;
  }

  /** An SDK failure as Strata's, naming the mount and the folder listed. */
  private StrataException error(SdkException e, String folder) {
    return bucket.error(e, folder.isEmpty() ? "/" : folder);
  }

  /** A page iterator whose SDK failures come out as Strata's, naming the mount. */
  private final class Translated<T> implements Iterator<T> {
    private final Iterator<T> pages;
    private final String what;

    Translated(Iterator<T> pages, String what) {
      this.pages = pages;
      this.what = what;
    }

    @Override
    public boolean hasNext() {
      try {
        return pages.hasNext();
      } catch (SdkException e) {
        throw error(e, what);
      }
    }

    @Override
    public T next() {
      try {
        return pages.next();
      } catch (SdkException e) {
        throw error(e, what);
      }
    }
  }
}
