/**
 * Shared foundations of every Strata process: configuration, wire, UFS, hash ring, errors, metrics.
 */
package io.strata.core;
