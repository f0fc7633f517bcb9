package io.strata.worker.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.LoadFileResult;
import io.strata.core.proto.LoadFilesRequest;
import io.strata.worker.TestFiles;
import io.strata.worker.page.PageId;
import io.strata.worker.page.PageStore;
import io.strata.worker.ufs.UfsManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileLoaderTest {
  private static final int PAGE = 4096;

  @TempDir Path root;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private PageStore store;
  private UfsManager ufs;
  private FileLoader loader;
  private byte[] data;

  @BeforeEach
  void setUp() throws Exception {
    data = new byte[PAGE * 2 + 10];
    new Random(5).nextBytes(data);
    Files.write(root.resolve("f"), data);
    store = TestFiles.pageStore(1 << 20, registry);
    ufs = TestFiles.ufsAt(root);
    loader =
        new FileLoader(ufs, store, PAGE, PooledByteBufAllocator.DEFAULT, Runnable::run, registry);
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  @Test
  void aListingThatSaysLess_stillCachesWholePages_cutByTheFileItself() {
    UfsManager.Resolved file = ufs.resolve(StrataPath.of("/f"));
    String fp = file.ufs().getStatus(file.ufsPath()).fingerprint();
    FileStatus shortened =
        FileStatus.newBuilder().setPath("/f").setLength(1).setFingerprint(fp).build();
    LoadFileResult r =
        loader
            .load(LoadFilesRequest.newBuilder().setJobId(1).addFiles(shortened).build())
            .join()
            .getResults(0);
    assertThat(r.getOk()).as(r.getError()).isTrue();
    assertThat(r.getBytesLoaded()).isEqualTo(data.length);
    PageId.FileKey key = PageId.FileKey.of(file.ufsUri(), fp, PAGE);
    for (int i = 0; i < 3; i++) {
      ByteBuf page = store.getFromMemory(key.page(i));
      try {
        int from = i * PAGE;
        assertThat(ByteBufUtil.getBytes(page))
            .isEqualTo(Arrays.copyOfRange(data, from, Math.min(data.length, from + PAGE)));
      } finally {
        page.release();
      }
    }
  }
}
