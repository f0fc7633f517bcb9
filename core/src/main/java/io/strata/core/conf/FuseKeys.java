package io.strata.core.conf;

import java.time.Duration;

/** Keys of the FUSE process (a client: it also reads the strata.user.* keys). */
public final class FuseKeys {
  private FuseKeys() {}

  public static final ConfKey<Boolean> KERNEL_CACHE =
      ConfKey.bool("strata.fuse.kernel.cache.enabled")
          .defaultValue("true")
          .scope(Scope.CLIENT)
          .description(
              "Let the kernel keep a file's pages in its page cache across opens while the file is "
                  + "unchanged (an open of another version drops them); off, every open starts with an "
                  + "empty page cache. Applies at mount.")
          .build();

  public static final ConfKey<Boolean> XATTR =
      ConfKey.bool("strata.fuse.xattr.enabled")
          .defaultValue("false")
          .scope(Scope.CLIENT)
          .description(
              "Serve extended attributes of the user namespace (user.*) through the mount, kept by "
                  + "the under-storage. Off by default, as JuiceFS and s3fs have it: with them on, "
                  + "the kernel asks the mount for security.capability before every write (writes "
                  + "measured 18 % slower); off, the mount answers EOPNOTSUPP. Applies at mount.")
          .build();

  public static final ConfKey<Boolean> METADATA_CACHE =
      ConfKey.bool("strata.fuse.metadata.cache.enabled")
          .defaultValue("true")
          .scope(Scope.CLIENT)
          .description(
              "Answer look-ups and getattr of files the mount has seen from its own memory, for as long "
                  + "as the worker that told it would answer the same (strata.worker.metadata.cache.ttl); "
                  + "every worker tells the mount at once of what it drops (a change through any client, "
                  + "fs invalidate). Off, the mount keeps statuses for strata.user.metadata.cache.ttl "
                  + "only. Applies at mount.")
          .build();

  public static final ConfKey<Duration> ATTR_TIMEOUT =
      ConfKey.duration("strata.fuse.attr.timeout")
          .defaultValue("1s")
          .scope(Scope.CLIENT)
          .check(d -> !d.isNegative(), "must not be negative")
          .description(
              "How long the kernel trusts a file's attributes (size, mode, times) before asking again. "
                  + "Applies at mount.")
          .build();

  public static final ConfKey<Duration> ENTRY_TIMEOUT =
      ConfKey.duration("strata.fuse.entry.timeout")
          .defaultValue("1s")
          .scope(Scope.CLIENT)
          .check(d -> !d.isNegative(), "must not be negative")
          .description(
              "How long the kernel trusts a name look-up (including that a name does not exist). "
                  + "Applies at mount.")
          .build();

  public static final ConfKey<String> ENGINE =
      ConfKey.string("strata.fuse.engine")
          .defaultValue("strata")
          .scope(Scope.CLIENT)
          .check(e -> e.equals("strata") || e.equals("jnr"), "must be strata or jnr")
          .description(
              "What speaks the FUSE protocol for the mount: strata, Strata's own loop on /dev/fuse "
                  + "(1 MiB requests, read passthrough on ro mounts; needs root, else the mount says "
                  + "so in its log and uses jnr), or jnr, libfuse 2 through jnr-fuse. The mount "
                  + "option engine= sets it. Applies at mount.")
          .build();

  public static final ConfKey<Long> PASSTHROUGH_FETCH_MAX =
      ConfKey.bytes("strata.fuse.passthrough.fetch.max.size")
          .defaultValue("16MiB")
          .scope(Scope.CLIENT)
          .check(n -> n >= 0, "must not be negative")
          .description(
              "On a mount whose reads pass through (own loop, ro, root), an open of a file up to this "
                  + "size that its co-located worker keeps no whole file of asks the worker to read it "
                  + "whole from the under-storage first (when it is at least "
                  + "strata.worker.page.store.whole.min.size), then passes through to it: a cold "
                  + "epoch reads the under-storage once and the kernel serves the file. Larger files "
                  + "are read through the mount until cached whole; 0: opens never wait for a "
                  + "fetch. Applies at mount.")
          .build();

  public static final ConfKey<Integer> THREADS =
      ConfKey.integer("strata.fuse.threads")
          .defaultValue("0")
          .scope(Scope.CLIENT)
          .check(n -> n >= 0 && n <= 256, "must be 0 (two per core, 4 to 64) or 1 to 256")
          .description(
              "Threads serving the mount's requests, each one request at a time (a cold read holds "
                  + "one for its whole fetch); 0: two per core, at least 4 and at most 64. More than "
                  + "needed costs latency: the kernel hands each request to the longest idle thread, "
                  + "so a lone reader meets a cold thread every time (16 on 2 cores: random 4 KiB "
                  + "reads a sixth slower than 4). Applies at mount.")
          .build();

  public static final ConfKey<String> USER =
      ConfKey.string("strata.fuse.user")
          .defaultValue("")
          .scope(Scope.CLIENT)
          .description(
              "Show every file as owned by this local user; empty maps each file's UFS owner to the local "
                  + "user of that name, and to the user running the mount when there is none.")
          .build();

  public static final ConfKey<String> GROUP =
      ConfKey.string("strata.fuse.group")
          .defaultValue("")
          .scope(Scope.CLIENT)
          .description("Like strata.fuse.user, for the group.")
          .build();

  public static final ConfKey<String> SPILL_DIR =
      ConfKey.string("strata.fuse.spill.dir")
          .defaultValue("")
          .scope(Scope.CLIENT)
          .description(
              "Folder where a file changed in place through the mount (opened read-write or for "
                  + "appending, written behind its end, truncated to another size) is copied while "
                  + "it is open; it is published whole at close. Empty: the system's temporary folder.")
          .build();

  public static final ConfKey<String> BIND_HOST =
      ConfKey.string("strata.fuse.bind.host")
          .defaultValue("127.0.0.1")
          .scope(Scope.CLIENT)
          .description("Address the FUSE process's web port listens on.")
          .build();

  public static final ConfKey<Integer> WEB_PORT =
      ConfKey.integer("strata.fuse.web.port")
          .defaultValue("7720")
          .scope(Scope.CLIENT)
          .check(Ports::valid, Ports.MESSAGE)
          .description(
              "Port of the FUSE process's /metrics, /health and /stacks; 0 picks a free one. When it is "
                  + "taken (a second mount on the host), the process serves them on a free port and logs which.")
          .build();
}
