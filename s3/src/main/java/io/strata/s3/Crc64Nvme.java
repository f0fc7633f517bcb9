package io.strata.s3;

import java.util.zip.Checksum;

/**
 * CRC-64/NVME (poly 0xAD93D23594C93659, reflected, init and final xor all ones), the checksum the
 * AWS SDKs and S3 name CRC64NVME. Table-driven, a byte at a time.
 */
final class Crc64Nvme implements Checksum {
  private static final long POLY_REFLECTED = 0x9A6C9329AC4BC9B5L;
  private static final long[] TABLE = new long[256];

  static {
    for (int i = 0; i < 256; i++) {
      long crc = i;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 1) != 0 ? (crc >>> 1) ^ POLY_REFLECTED : crc >>> 1;
      }
      TABLE[i] = crc;
    }
  }

  private long crc = -1L;

  @Override
  public void update(int b) {
    crc = TABLE[(int) ((crc ^ b) & 0xff)] ^ (crc >>> 8);
  }

  @Override
  public void update(byte[] b, int off, int len) {
    long c = crc;
    for (int i = off; i < off + len; i++) {
      c = TABLE[(int) ((c ^ b[i]) & 0xff)] ^ (c >>> 8);
    }
    crc = c;
  }

  @Override
  public long getValue() {
    return ~crc;
  }

  @Override
  public void reset() {
    crc = -1L;
  }
}
