package io.strata.worker.auth;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The ids a token's user acts as and owns with, as this host's {@code id} gives them. */
class OsAccountsTest {
  private final OsAccounts accounts = new OsAccounts();

  @Test
  void aNumberNoAccountHas_isThatUid_inTheGroupOfTheSameNumber() {
    assertThat(accounts.apply("4001")).contains(new OsAccounts.Ids(4001, 4001));
  }

  /** Issue 78: a USER token naming root acted as fsuid 0 on a root worker. */
  @Test
  void root_byNameOrByNumber_isNoAccountToActAs() {
    assertThat(accounts.apply("root")).isEmpty();
    assertThat(accounts.apply("0")).isEmpty();
  }

  @Test
  void aNameNoAccountHas_isNone() {
    assertThat(accounts.apply("no-such-user-of-this-host")).isEmpty();
  }
}
