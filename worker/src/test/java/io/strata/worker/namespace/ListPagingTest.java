package io.strata.worker.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.proto.FileStatus;
import io.strata.worker.meta.MetadataService;
import java.util.List;
import org.junit.jupiter.api.Test;

class ListPagingTest {
  private final List<FileStatus> children = List.of(child("a"), child("b"), child("c"), child("d"));

  private static FileStatus child(String name) {
    return FileStatus.newBuilder().setName(name).build();
  }

  private static List<String> names(List<FileStatus> page) {
    return page.stream().map(FileStatus::getName).toList();
  }

  @Test
  void pages_startAfterAName_andStopAtTheLimit() {
    assertThat(names(MetadataService.slice(children, "", 0))).containsExactly("a", "b", "c", "d");
    assertThat(names(MetadataService.slice(children, "", 2))).containsExactly("a", "b");
    assertThat(names(MetadataService.slice(children, "b", 2))).containsExactly("c", "d");
    assertThat(names(MetadataService.slice(children, "bb", 0))).containsExactly("c", "d");
    assertThat(names(MetadataService.slice(children, "d", 5))).isEmpty();
    assertThat(names(MetadataService.slice(children, "0", Integer.MAX_VALUE))).hasSize(4);
  }
}
