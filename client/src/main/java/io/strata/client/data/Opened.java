package io.strata.client.data;

import io.strata.core.proto.FileStatus;

/** What an OPEN brought back: the file's status, and how many of its first bytes came with it. */
public record Opened(FileStatus status, int firstBytes) {}
