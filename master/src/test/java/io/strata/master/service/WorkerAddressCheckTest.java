package io.strata.master.service;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.proto.WorkerAddress;
import io.strata.core.status.StrataException;
import org.junit.jupiter.api.Test;

/** A worker registers with an address that exists and that every client can read in its view. */
class WorkerAddressCheckTest {
  private static WorkerAddress.Builder at(String host) {
    return WorkerAddress.newBuilder().setHost(host).setRpcPort(7710).setDataPort(7711);
  }

  @Test
  void namesAndAddressesHostsHave_areTaken() {
    for (String host :
        new String[] {
          "127.0.0.1", "localhost", "worker-7.rack2.example.com.", "::1", "[fe80::1]", "ip_10_0_0_1"
        }) {
      assertThatCode(() -> WorkerAddressCheck.check(at(host).build()))
          .as(host)
          .doesNotThrowAnyException();
    }
  }

  @Test
  void hugeOrForgedNamesPortsAndSockets_areRefused() {
    for (WorkerAddress bad :
        new WorkerAddress[] {
          at("x".repeat(2 << 20)).build(),
          at("a".repeat(250) + "-").build(),
          at("").build(),
          at("evil\nname").build(),
          at("a b").build(),
          at("-leading.dash").build(),
          at("two..dots").build(),
          at("host").setRpcPort(0).build(),
          at("host").setDataPort(70_000).build(),
          at("host").setDomainSocketPath("/" + "s".repeat(200)).build(),
          at("host").setDomainSocketPath("/run/a\nb").build()
        }) {
      assertThatThrownBy(() -> WorkerAddressCheck.check(bad))
          .isInstanceOf(StrataException.class)
          .hasMessageNotContaining("\n");
    }
  }
}
