package io.strata.s3;

import io.strata.client.FileSystem;

/** What the endpoint does for one caller, every operation through that caller's client. */
record S3Operations(
    BucketOps buckets,
    ObjectReads reads,
    ObjectWrites writes,
    DeleteObjects deletes,
    MultipartOps multipart) {

  /**
   * The operations over {@code fs}; {@code owner} names the caller's multipart uploads; objects up
   * to {@code wholeFetchMax} are kept whole by the worker to be sent from its file.
   */
  static S3Operations over(
      FileSystem fs, UploadStore uploads, String region, long wholeFetchMax, String owner) {
    ObjectWrites writes = new ObjectWrites(fs);
    return new S3Operations(
        new BucketOps(fs, region),
        new ObjectReads(fs, wholeFetchMax),
        writes,
        new DeleteObjects(writes),
        new MultipartOps(fs, uploads, writes, owner));
  }
}
