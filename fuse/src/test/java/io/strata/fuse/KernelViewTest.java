package io.strata.fuse;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.client.FileInfo;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import jnr.ffi.Memory;
import jnr.ffi.Runtime;
import jnr.ffi.Struct;
import org.junit.jupiter.api.Test;
import ru.serce.jnrfuse.struct.FuseFileInfo;

/**
 * The kernel view's promise under races: while a file is open for reading, no getattr reply tells
 * the kernel another version's size (the kernel would cut the read there), and an open whose
 * version the kernel may not hold reads with direct_io.
 */
class KernelViewTest {
  private static final String PATH = "/d/f";
  private static final FileInfo OLD = version("old", 2_671_809);
  private static final FileInfo NEW = version("new", 1_000);

  private final KernelView view = new KernelView(Duration.ofSeconds(1), true);

  @Test
  void aGetattrThatLookedUpTheCurrentVersionBeforeAnOpen_repliesWithTheVersionTheOpenReads()
      throws Exception {
    view.attributes(PATH, () -> OLD);
    CountDownLatch lookingUp = new CountDownLatch(1);
    CountDownLatch replaced = new CountDownLatch(1);
    CompletableFuture<FileInfo> getattr =
        CompletableFuture.supplyAsync(
            () ->
                view.attributes(
                    PATH,
                    () -> {
                      lookingUp.countDown();
                      await(replaced);
                      return NEW;
                    }));
    assertThat(lookingUp.await(10, TimeUnit.SECONDS)).isTrue();

    FuseFileInfo fi = fileInfo();
    KernelView.Reading reading = view.open(PATH, () -> NEW, fi);
    replaced.countDown();

    assertThat(reading.version()).isEqualTo(OLD);
    assertThat(flags(fi) & 1).as("direct_io").isZero();
    assertThat(getattr.get(10, TimeUnit.SECONDS)).isEqualTo(OLD);
  }

  @Test
  void anOpenThatLookedUpTheCurrentVersionWhileAGetattrToldAnother_readsWithDirectIo() {
    FuseFileInfo fi = fileInfo();
    KernelView.Reading reading =
        view.open(
            PATH,
            () -> {
              // The kernel's attributes had expired; a stat on another thread tells it NEW
              // while this open still looks up the version it will read.
              CompletableFuture.supplyAsync(() -> view.attributes(PATH, () -> NEW)).join();
              return OLD;
            },
            fi);

    assertThat(reading.version()).isEqualTo(OLD);
    assertThat(flags(fi) & 1).as("direct_io").isEqualTo(1);
  }

  /**
   * A rename through the mount leaves the kernel with the size the writer's writes gave the inode;
   * an open that began within the window after it, and whose look-up took longer than the window (a
   * worker restarting), still cannot know which size the kernel holds.
   */
  @Test
  void anOpenThatBeganRightAfterAChange_readsWithDirectIo_howeverLongItsLookUpTakes() {
    AtomicLong nanos = new AtomicLong();
    KernelView slow = new KernelView(Duration.ofSeconds(1), true, nanos::get);
    slow.changing(PATH);
    slow.changed(PATH);
    FuseFileInfo fi = fileInfo();
    KernelView.Reading reading =
        slow.open(
            PATH,
            () -> {
              nanos.addAndGet(TimeUnit.SECONDS.toNanos(5));
              return NEW;
            },
            fi);
    assertThat(reading.version()).isEqualTo(NEW);
    assertThat(flags(fi) & 1).as("direct_io").isEqualTo(1);

    FuseFileInfo later = fileInfo();
    slow.attributes(PATH, () -> NEW);
    slow.open(PATH, () -> NEW, later);
    assertThat(flags(later) & 1).as("direct_io once the window has passed").isZero();
  }

  /**
   * The kernel looked the path up (and took its size) a while ago, and the open then waited in the
   * kernel's queue behind busy FUSE threads for longer than the kernel view keeps what getattr
   * told: the version opened now may not be the one whose size the kernel holds.
   */
  @Test
  void anOpenQueuedPastTheWindowOfItsLookUp_readsWithDirectIo() {
    AtomicLong nanos = new AtomicLong();
    KernelView queued = new KernelView(Duration.ofSeconds(1), true, nanos::get);
    queued.attributes(PATH, () -> OLD);
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(3));

    FuseFileInfo fi = fileInfo();
    KernelView.Reading reading = queued.open(PATH, () -> NEW, fi);

    assertThat(reading.version()).isEqualTo(NEW);
    assertThat(flags(fi) & 1).as("direct_io").isEqualTo(1);
    FuseFileInfo afterLookUp = fileInfo();
    queued.attributes(PATH, () -> NEW);
    queued.open(PATH, () -> NEW, afterLookUp);
    assertThat(flags(afterLookUp) & 1).as("direct_io after a fresh look-up").isZero();
  }

  @Test
  void aRenamedFileKeepsTheVersionItsReadersRead_untilTheyClose() {
    view.attributes(PATH, () -> OLD);
    KernelView.Reading reading = view.open(PATH, () -> OLD, fileInfo());
    String hidden = "/d/.fuse_hidden0000000100000001";

    KernelView.Reading moving = view.renaming(PATH, hidden);
    view.renamed(PATH, hidden, moving, true);

    assertThat(view.attributes(hidden, () -> NEW)).isEqualTo(OLD);
    view.closed(reading);
    assertThat(view.attributes(hidden, () -> NEW)).isEqualTo(NEW);
  }

  @Test
  void aFailedRenameMovesNothing() {
    view.attributes(PATH, () -> OLD);
    KernelView.Reading reading = view.open(PATH, () -> OLD, fileInfo());

    KernelView.Reading moving = view.renaming(PATH, "/d/g");
    view.renamed(PATH, "/d/g", moving, false);

    assertThat(view.attributes("/d/g", () -> NEW)).isEqualTo(NEW);
    view.closed(reading);
  }

  private static FileInfo version(String fingerprint, long length) {
    return new FileInfo(PATH, "f", false, length, 0, 0644, "u", "g", fingerprint, PATH, 0);
  }

  private static FuseFileInfo fileInfo() {
    // Zeroed, the size of libfuse 2's struct fuse_file_info on LP64.
    return FuseFileInfo.of(Memory.allocateDirect(Runtime.getSystemRuntime(), 64, true));
  }

  private static int flags(FuseFileInfo fi) {
    return Struct.getMemory(fi).getInt(20);
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
