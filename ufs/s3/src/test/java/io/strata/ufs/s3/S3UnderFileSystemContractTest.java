package io.strata.ufs.s3;

import io.strata.core.ufs.UnderFileSystem;
import io.strata.core.ufs.UnderFileSystemContract;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * The under-storage contract on S3: a real S3-compatible server (local-s3, in this JVM) on
 * 127.0.0.1, a bucket per test, mounted under a prefix.
 */
class S3UnderFileSystemContractTest extends UnderFileSystemContract {
  private static final AtomicInteger BUCKETS = new AtomicInteger();
  @RegisterExtension static final LocalS3Store store = LocalS3Store.withBuckets();

  private String bucket;

  @Override
  protected UnderFileSystem open() {
    bucket = "contract-" + BUCKETS.incrementAndGet();
    store.admin().createBucket(r -> r.bucket(bucket));
    return new S3UnderFileSystem(
        "s3://" + bucket + "/mounted/here", S3Settings.of(LocalS3Store.options(store.port())));
  }

  @Override
  protected void putBehindStrata(String path, byte[] bytes) {
    store
        .admin()
        .putObject(r -> r.bucket(bucket).key("mounted/here" + path), RequestBody.fromBytes(bytes));
  }
}
