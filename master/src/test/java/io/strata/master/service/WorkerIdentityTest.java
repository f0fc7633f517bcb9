package io.strata.master.service;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.proto.WorkerAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class WorkerIdentityTest {
  private static WorkerAddress at(String host) {
    return WorkerAddress.newBuilder().setHost(host).setRpcPort(1).setDataPort(2).build();
  }

  /** 127.0.0.{@code last}, port 5000. */
  private static InetSocketAddress from(int last) {
    try {
      return new InetSocketAddress(
          java.net.InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) last}), 5000);
    } catch (java.net.UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aWorkerNamesTheHostItCallsFrom() {
    assertThatCode(() -> WorkerIdentity.check(at("127.0.0.1"), from(1))).doesNotThrowAnyException();
    assertThatCode(() -> WorkerIdentity.check(at("localhost"), from(2)))
        .as("loopback for loopback")
        .doesNotThrowAnyException();
  }

  @Test
  void anotherHostsAddressIsRefused() {
    assertThatThrownBy(() -> WorkerIdentity.check(at("10.1.2.3"), from(1)))
        .hasMessageContaining(
            "a worker registers only its own address: 10.1.2.3 called from 127.0.0.1");
    assertThatThrownBy(() -> WorkerIdentity.check(at("no-such-host.invalid"), from(1)))
        .hasMessageContaining("does not resolve");
  }
}
