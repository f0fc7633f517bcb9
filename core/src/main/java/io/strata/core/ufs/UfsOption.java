package io.strata.core.ufs;

/**
 * A mount option an under-storage driver takes ({@code strata fs mount ... --option name=value}).
 *
 * @param name the key, or a prefix ending in {@code *} for a family of keys passed through
 * @param description one line, for {@code fs mount --help} and the docs
 */
public record UfsOption(String name, String description) {}
