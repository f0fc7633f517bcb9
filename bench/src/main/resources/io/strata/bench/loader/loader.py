"""One epoch of a training data loader, shaped like PyTorch's DataLoader over a folder dataset.

Usage: loader.py MANIFEST ROOT PROCESSES SEED [BATCH [whole|stream]]

MANIFEST has a line per sample: "<relative path>\t<size>\t<crc32>". First the data set is indexed
as torchvision's ImageFolder does when it is made (a listing of ROOT, then of each folder in it;
timed apart, as index_seconds: a job does it once, not per epoch). Then the samples are shuffled by
SEED (a new order each epoch), cut into batches of BATCH (64), and the batches dealt round-robin to
PROCESSES worker processes, as DataLoader's workers take them. Each sample is read whole (open,
read to the end, close; "stream": in 1 MiB pieces front to back, as a WebDataset shard is read) and "decoded" by its crc32, which must match the manifest. Prints one JSON
line: samples, bytes, seconds, mismatches (wrong size or crc), errors.
"""
import json
import multiprocessing as mp
import os
import random
import sys
import time
import zlib


def read_samples(root, batches, stream, out):
    samples = nbytes = mismatches = errors = 0
    first_bad = ""
    for batch in batches:
        for rel, size, crc in batch:
            try:
                with open(os.path.join(root, rel), "rb", buffering=0) as f:
                    if stream:
                        n, c = 0, 0
                        while True:
                            piece = f.read(1 << 20)
                            if not piece:
                                break
                            n += len(piece)
                            c = zlib.crc32(piece, c)
                    else:
                        data = f.read()  # to the end, as a decoder's read() of the sample does
                        n, c = len(data), zlib.crc32(data)
            except OSError as e:
                errors += 1
                first_bad = first_bad or "%s: %s" % (rel, e)
                continue
            samples += 1
            nbytes += n
            if n != size or (c & 0xFFFFFFFF) != crc:
                mismatches += 1
                first_bad = first_bad or "%s: %d bytes, crc %08x" % (rel, n, c & 0xFFFFFFFF)
    out.put((samples, nbytes, mismatches, errors, first_bad))


def main():
    manifest, root, processes, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    batch = int(sys.argv[5]) if len(sys.argv) > 5 else 64
    stream = len(sys.argv) > 6 and sys.argv[6] == "stream"
    entries = []
    with open(manifest) as f:
        for line in f:
            rel, size, crc = line.rstrip("\n").split("\t")
            entries.append((rel, int(size), int(crc, 16)))
    start = time.monotonic()
    listed = 0
    with os.scandir(root) as top:
        folders = sorted(e.name for e in top if e.is_dir())
    for folder in folders:
        with os.scandir(os.path.join(root, folder)) as files:
            listed += sum(1 for e in files if e.is_file())
    index_seconds = time.monotonic() - start
    random.Random(seed).shuffle(entries)
    batches = [entries[i:i + batch] for i in range(0, len(entries), batch)]
    dealt = [batches[p::processes] for p in range(processes)]
    out = mp.Queue()
    workers = [mp.Process(target=read_samples, args=(root, dealt[p], stream, out)) for p in range(processes)]
    start = time.monotonic()
    for w in workers:
        w.start()
    results = [out.get() for _ in workers]
    seconds = time.monotonic() - start
    for w in workers:
        w.join()
    print(json.dumps({
        "samples": sum(r[0] for r in results),
        "bytes": sum(r[1] for r in results),
        "seconds": seconds,
        "index_seconds": index_seconds,
        "listed": listed,
        "mismatches": sum(r[2] for r in results),
        "errors": sum(r[3] for r in results),
        "first_bad": next((r[4] for r in results if r[4]), ""),
    }))


if __name__ == "__main__":
    main()
