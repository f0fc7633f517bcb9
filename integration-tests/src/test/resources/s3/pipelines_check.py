"""What data pipelines do through Strata's S3 endpoint: PyArrow's own S3 file system writes a
Parquet dataset and reads it back, fsspec's s3fs reads it (as pandas, Dask and PyTorch's data
loaders do), and PyArrow reads single columns by range. Arguments: endpoint URL, access key,
secret key, bucket. Prints "pipelines checks passed" when every check holds."""
import sys

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import s3fs

endpoint, access, secret, bucket = sys.argv[1:5]
host = endpoint.split("://", 1)[1]

arrow_fs = pafs.S3FileSystem(
    endpoint_override=host,
    scheme="http",
    access_key=access,
    secret_key=secret,
    region="us-east-1",
    allow_bucket_creation=True,
)
arrow_fs.create_dir(bucket)

rows = 20_000
table = pa.table(
    {
        "id": pa.array(range(rows), type=pa.int64()),
        "label": pa.array([i % 10 for i in range(rows)], type=pa.int8()),
        "text": pa.array(["sample %d" % i for i in range(rows)]),
    }
)
# A partitioned dataset of several files, as a feature pipeline writes one.
pq.write_to_dataset(table, bucket + "/features", filesystem=arrow_fs, partition_cols=["label"])
listed = arrow_fs.get_file_info(pafs.FileSelector(bucket + "/features", recursive=True))
files = [f.path for f in listed if f.type == pafs.FileType.File]
assert len(files) == 10, files

back = ds.dataset(bucket + "/features", filesystem=arrow_fs, partitioning="hive").to_table()
assert back.num_rows == rows, back.num_rows
assert sorted(back.column("id").to_pylist()) == list(range(rows))

# One column only: PyArrow reads the footer, then that column's pages, by ranges.
ids = pq.read_table(files[0], columns=["id"], filesystem=arrow_fs)
assert ids.num_columns == 1 and ids.num_rows > 0

fs = s3fs.S3FileSystem(
    key=access,
    secret=secret,
    client_kwargs={"endpoint_url": endpoint, "region_name": "us-east-1"},
)
assert len(fs.find(bucket + "/features")) == 10
with fs.open(files[0], "rb") as f:
    head = f.read(4)
assert head == b"PAR1", head
via_fsspec = pq.read_table(bucket + "/features", filesystem=fs, partitioning="hive")
assert via_fsspec.num_rows == rows, via_fsspec.num_rows
fs.pipe(bucket + "/from-fsspec.txt", b"written by s3fs")
assert fs.cat(bucket + "/from-fsspec.txt") == b"written by s3fs"

print("pipelines checks passed: %d rows in %d files" % (back.num_rows, len(files)))
