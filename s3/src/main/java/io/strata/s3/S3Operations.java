package io.strata.s3;

import io.strata.client.FileSystem;

/** What the endpoint does for one caller, every operation through that caller's client. */
record S3Operations(
    BucketOps buckets,
    ObjectReads reads,
    ObjectWrites writes,
    DeleteObjects deletes,
    MultipartOps multipart) {

  /** The endpoint's own operations (its credentials file's keys): whole files sent as they are. */
  static S3Operations own(FileSystem fs, UploadStore uploads, String region, long wholeFetchMax) {
    return over(fs, uploads, region, new ObjectReads(fs, true, wholeFetchMax), "");
  }

  /**
   * A TOKEN-mode user's operations over their own client: {@code user} names their multipart
   * uploads, and every GET opens the version through the worker, which checks their right to read.
   */
  static S3Operations user(FileSystem fs, UploadStore uploads, String region, String user) {
    return over(fs, uploads, region, new ObjectReads(fs, false, 0), user);
  }

  private static S3Operations over(
      FileSystem fs, UploadStore uploads, String region, ObjectReads reads, String owner) {
    ObjectWrites writes = new ObjectWrites(fs);
    return new S3Operations(
        new BucketOps(fs, uploads, region),
        reads,
        writes,
        new DeleteObjects(writes),
        new MultipartOps(fs, uploads, writes, owner));
  }
}
