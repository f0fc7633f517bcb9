package io.strata.ufs.s3;

import io.strata.core.ufs.UfsOption;
import io.strata.core.ufs.UnderFileSystem;
import io.strata.core.ufs.UnderFileSystemProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The S3 driver: AWS S3 and S3-compatible stores (MinIO, Ceph, R2...), {@code s3://}. */
public final class S3UnderFileSystemProvider implements UnderFileSystemProvider {
  @Override
  public String name() {
    return "s3";
  }

  @Override
  public Set<String> schemes() {
    return Set.of("s3");
  }

  @Override
  public String describe() {
    return "s3://bucket/prefix";
  }

  @Override
  public List<UfsOption> options() {
    return S3Settings.OPTIONS;
  }

  @Override
  public UnderFileSystem open(String uri, Map<String, String> options, Duration tempMaxAge) {
    return new S3UnderFileSystem(uri, S3Settings.of(options));
  }

  @Override
  public String normalize(String uri) {
    return S3UnderFileSystem.normalize(uri);
  }

  @Override
  public boolean listsFlat() {
    return true;
  }
}
