package io.strata.worker.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One suite every KvStore must pass. */
abstract class KvStoreContract {
  private KvStore store;

  abstract KvStore open() throws Exception;

  @BeforeEach
  void setUp() throws Exception {
    store = open();
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void putGetDelete() {
    assertThat(store.get(b("a"))).isNull();
    store.put(b("a"), b("1"));
    assertThat(store.get(b("a"))).isEqualTo(b("1"));
    store.put(b("a"), b("2"));
    assertThat(store.get(b("a"))).isEqualTo(b("2"));
    store.delete(b("a"));
    assertThat(store.get(b("a"))).isNull();
  }

  @Test
  void scan_visitsOnlyThePrefix_inKeyOrder() {
    for (String k : new String[] {"Pb", "Pa", "Q1", "P", "Pc", "O9"}) {
      store.put(b(k), b(k.toLowerCase(Locale.ROOT)));
    }
    List<String> seen = new ArrayList<>();
    store.scan(b("P"), (k, v) -> seen.add(new String(k, StandardCharsets.UTF_8)));
    assertThat(seen).containsExactly("P", "Pa", "Pb", "Pc");
  }

  @Test
  void scan_ordersBytesUnsigned() {
    store.put(new byte[] {'P', (byte) 0x80}, b("high"));
    store.put(new byte[] {'P', 0x01}, b("low"));
    List<String> seen = new ArrayList<>();
    store.scan(b("P"), (k, v) -> seen.add(new String(v, StandardCharsets.UTF_8)));
    assertThat(seen).containsExactly("low", "high");
  }

  @Test
  void batch_appliesEveryWrite() {
    store.put(b("x"), b("old"));
    store.write(new KvStore.Batch().put(b("y"), b("1")).delete(b("x")).put(b("z"), b("2")));
    assertThat(store.get(b("x"))).isNull();
    assertThat(store.get(b("y"))).isEqualTo(b("1"));
    assertThat(store.get(b("z"))).isEqualTo(b("2"));
  }

  @Test
  void scanFrom_givesAPageStartingAtAKey() {
    for (String k : new String[] {"Pa", "Pb", "Pc", "Pd", "Q1"}) {
      store.put(b(k), b(k));
    }
    List<String> seen = new ArrayList<>();
    store.scan(b("P"), b("Pb"), 2, (k, v) -> seen.add(new String(k, StandardCharsets.UTF_8)));
    assertThat(seen).containsExactly("Pb", "Pc");
    seen.clear();
    store.scan(b("P"), b("Pc\0"), 10, (k, v) -> seen.add(new String(k, StandardCharsets.UTF_8)));
    assertThat(seen).as("the keys after Pc").containsExactly("Pd");
    seen.clear();
    store.scan(b("P"), b("A"), 10, (k, v) -> seen.add(new String(k, StandardCharsets.UTF_8)));
    assertThat(seen).as("a start before the prefix starts at it").hasSize(4);
  }

  @Test
  void deleteRange_removesEveryKeyInIt_andNoOther() {
    for (String k : new String[] {"Ra", "Rb\0x", "Rb\0y", "Rc", "S"}) {
      store.put(b(k), b(k));
    }
    store.write(new KvStore.Batch().deleteRange(b("Rb"), b("Rc")).put(b("T"), b("t")));
    List<String> seen = new ArrayList<>();
    store.scan(b(""), (k, v) -> seen.add(new String(k, StandardCharsets.UTF_8)));
    assertThat(seen).containsExactly("Ra", "Rc", "S", "T");
  }
}
