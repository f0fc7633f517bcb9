package io.strata.core.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConnectionGateTest {
  private static final Principal ALICE = new Principal("alice", Role.USER);
  private static final Principal MALLORY = new Principal("mallory", Role.USER);
  private static final Principal WORKER = new Principal("worker", Role.SERVICE);

  /** A connection of the test's: closing it tells the gate, as a transport's close listener. */
  private static final class Conn {
    ConnectionGate.Held held;
    boolean closed;
  }

  private final List<Conn> conns = new ArrayList<>();

  private Conn connect(ConnectionGate gate, Object source) {
    Conn c = new Conn();
    c.held =
        gate.admit(
            source,
            () -> {
              c.closed = true;
              c.held.leave();
            });
    conns.add(c);
    return c;
  }

  @Test
  void aFloodFromOneSource_closesOnlyItsOwnOldest_andANewClientGetsIn() {
    ConnectionGate gate = new ConnectionGate(ConnectionGate.Limits.of(4096, 256, 64));
    List<Conn> flood = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      flood.add(connect(gate, "127.0.0.2"));
    }
    assertThat(flood).allMatch(c -> c.held != null);
    assertThat(flood.stream().filter(c -> !c.closed)).hasSize(64);
    assertThat(flood.get(flood.size() - 1).closed).as("the newest stays").isFalse();

    Conn client = connect(gate, "127.0.0.1");
    assertThat(client.held.prove(ALICE)).isTrue();
    assertThat(gate.open()).isEqualTo(65);
    assertThat(gate.closedForRoom()).isEqualTo(10_000 - 64);
  }

  @Test
  void floodsFromManySources_closeTheOldestUnproven_neverAProvenOne() {
    ConnectionGate gate = new ConnectionGate(ConnectionGate.Limits.of(64, 8, 4));
    Conn worker = connect(gate, "10.0.0.1");
    worker.held.prove(WORKER);
    Conn alice = connect(gate, "10.0.0.2");
    alice.held.prove(ALICE);
    for (int i = 0; i < 5_000; i++) {
      connect(gate, "127.0." + (i % 250) + "." + (i / 250 + 1));
    }
    assertThat(worker.closed).isFalse();
    assertThat(alice.closed).isFalse();
    assertThat(gate.unproven()).isEqualTo(16);
    assertThat(gate.open()).isEqualTo(18);
    Conn late = connect(gate, "10.0.0.3");
    assertThat(late.held.prove(WORKER)).isTrue();
  }

  @Test
  void aUserPastTheirCap_isClosedAtTheProof_othersAreNot() {
    ConnectionGate gate = new ConnectionGate(ConnectionGate.Limits.of(64, 2, 4));
    Conn first = connect(gate, "a");
    Conn second = connect(gate, "a");
    assertThat(first.held.prove(MALLORY)).isTrue();
    assertThat(second.held.prove(MALLORY)).isTrue();
    Conn third = connect(gate, "a");
    assertThat(third.held.prove(MALLORY)).isFalse();
    assertThat(gate.refused()).isEqualTo(1);
    assertThat(connect(gate, "a").held.prove(ALICE)).isTrue();

    first.held.close();
    first.held.leave();
    assertThat(connect(gate, "a").held.prove(MALLORY)).as("a place freed").isTrue();
    assertThat(gate.open()).isEqualTo(3);
  }

  @Test
  void usersAllTogether_leaveTheReservedPlacesToTheClustersProcesses() {
    // 32 places, 2 reserved: 30 for users.
    ConnectionGate gate = new ConnectionGate(ConnectionGate.Limits.of(32, 32, 8));
    for (int i = 0; i < 30; i++) {
      assertThat(connect(gate, "h" + i).held.prove(new Principal("u" + i, Role.USER))).isTrue();
    }
    Conn late = connect(gate, "x");
    assertThat(late.held.prove(new Principal("u99", Role.USER))).isFalse();
    for (int i = 0; i < 2; i++) {
      assertThat(connect(gate, "w" + i).held.prove(WORKER)).isTrue();
    }
    assertThat(gate.open()).isEqualTo(32);
    assertThat(connect(gate, "y").held).as("every place held by proven connections").isNull();
  }

  @Test
  void leaving_isCountedOnce_evenAfterAClose() {
    ConnectionGate gate = new ConnectionGate(ConnectionGate.Limits.of(16, 4, 4));
    Conn c = connect(gate, "a");
    c.held.prove(ALICE);
    c.held.close();
    c.held.leave();
    assertThat(gate.open()).isZero();
    assertThat(c.held.prove(ALICE))
        .as("once gone, proven or not, the user's count is free")
        .isTrue();
  }
}
