"""boto3 against Strata's S3 endpoint: argv = endpoint, access key, secret key.

Exercises what pipelines do with today's botocore defaults (flexible checksums, aws-chunked
uploads with a trailing CRC32), listings through pages, ranges, presigned URLs, errors.
Prints one line per check; exits non-zero at the first that fails.
"""
import hashlib
import sys
import urllib.request

import boto3
import botocore
from botocore.config import Config

endpoint, access, secret = sys.argv[1:4]


def client(key=access, sec=secret):
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id=key,
        aws_secret_access_key=sec,
        region_name="us-east-1",
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}),
    )


s3 = client()


def check(name, ok):
    if not ok:
        print("FAILED: " + name)
        sys.exit(1)
    print("ok: " + name)


def error_code(call):
    try:
        call()
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"]
    return None


s3.create_bucket(Bucket="boto")
data = bytes(range(256)) * 4096  # 1 MiB
put = s3.put_object(Bucket="boto", Key="dir/one.bin", Body=data)
got = s3.get_object(Bucket="boto", Key="dir/one.bin")
check("put then get gives the bytes", got["Body"].read() == data)
check("the ETag of a put is the ETag of a get", put["ETag"] == got["ETag"])
for algorithm in ["CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"]:
    try:
        s3.put_object(Bucket="boto", Key="sums/" + algorithm, Body=b"x" * 1000, ChecksumAlgorithm=algorithm)
    except botocore.exceptions.MissingDependencyException:
        # CRC32C and CRC64NVME need botocore[crt] in the client; the endpoint takes them either way.
        print("skipped: " + algorithm + " (this botocore lacks awscrt)")
        continue
    check("upload checked with " + algorithm,
          s3.get_object(Bucket="boto", Key="sums/" + algorithm)["Body"].read() == b"x" * 1000)
    back = s3.head_object(Bucket="boto", Key="sums/" + algorithm, ChecksumMode="ENABLED")
    check(algorithm + " given back when asked", ("Checksum" + algorithm) in back)
part = s3.get_object(Bucket="boto", Key="dir/one.bin", Range="bytes=256-511")["Body"].read()
check("a range", part == bytes(range(256)))
for i in range(25):
    s3.put_object(Bucket="boto", Key="many/k%03d" % i, Body=b"%d" % i)
pages = s3.get_paginator("list_objects_v2").paginate(Bucket="boto", Prefix="many/", PaginationConfig={"PageSize": 10})
keys = [o["Key"] for p in pages for o in p.get("Contents", [])]
check("25 keys through pages of 10", keys == ["many/k%03d" % i for i in range(25)])
top = s3.list_objects_v2(Bucket="boto", Delimiter="/")
check("a delimiter gives the folders as common prefixes",
      [p["Prefix"] for p in top.get("CommonPrefixes", [])] == ["dir/", "many/", "sums/"])
url = s3.generate_presigned_url("get_object", Params={"Bucket": "boto", "Key": "dir/one.bin"}, ExpiresIn=60)
with urllib.request.urlopen(url) as r:
    check("a presigned GET", hashlib.sha256(r.read()).digest() == hashlib.sha256(data).digest())
check("a wrong secret is refused",
      error_code(lambda: client(sec="wrong").list_buckets()) == "SignatureDoesNotMatch")
check("a missing key", error_code(lambda: s3.get_object(Bucket="boto", Key="nope")) == "NoSuchKey")
check("a missing bucket", error_code(lambda: s3.list_objects_v2(Bucket="nope")) == "NoSuchBucket")
check("a key Strata cannot hold as a path",
      error_code(lambda: s3.put_object(Bucket="boto", Key="a//b", Body=b"x")) == "InvalidArgument")
deleted = s3.delete_objects(Bucket="boto", Delete={"Objects": [{"Key": "many/k%03d" % i} for i in range(25)]})
check("DeleteObjects", len(deleted.get("Deleted", [])) == 25)
check("the keys are gone", s3.list_objects_v2(Bucket="boto", Prefix="many/")["KeyCount"] == 0)
big = bytes(range(251)) * (20 * 1024 * 1024 // 251)  # ~20 MiB: uploaded in parts by upload_fileobj
import io
s3.upload_fileobj(io.BytesIO(big), "boto", "big/parts.bin")
out = io.BytesIO()
s3.download_fileobj("boto", "big/parts.bin", out)
check("a multipart upload by upload_fileobj, read back by download_fileobj",
      hashlib.sha256(out.getvalue()).digest() == hashlib.sha256(big).digest())
check("no upload left unfinished", not s3.list_multipart_uploads(Bucket="boto").get("Uploads"))

s3.put_object(Bucket="boto", Key="meta/a.json", Body=b"{}", ContentType="application/json",
              Metadata={"origin": "lab-7"})
head = s3.head_object(Bucket="boto", Key="meta/a.json")
check("Content-Type and x-amz-meta-* come back",
      head["ContentType"] == "application/json" and head["Metadata"] == {"origin": "lab-7"})
s3.upload_fileobj(io.BytesIO(big), "boto", "meta/parts.bin",
                  ExtraArgs={"ContentType": "image/png", "Metadata": {"origin": "lab-8"}})
head = s3.head_object(Bucket="boto", Key="meta/parts.bin")
check("a multipart upload keeps its metadata",
      head["ContentType"] == "image/png" and head["Metadata"] == {"origin": "lab-8"})
print("boto3 checks passed")
