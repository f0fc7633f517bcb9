package io.strata.fuse;

import static io.strata.fuse.MountlessWrites.O_WRONLY;
import static io.strata.fuse.MountlessWrites.bytes;
import static io.strata.fuse.MountlessWrites.fileInfo;
import static org.assertj.core.api.Assertions.assertThat;

import io.strata.client.NewEntry;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import ru.serce.jnrfuse.struct.FuseFileInfo;

/** Files written front to back, and what turns a writer into a change in place; no mount. */
class WritesTest {
  private static final NewEntry FILE = new NewEntry(0644, -1, -1);

  @TempDir static Path spill;
  private static MountlessWrites w;

  @BeforeAll
  static void start() throws Exception {
    w = new MountlessWrites(spill);
  }

  @AfterAll
  static void stop() {
    w.close();
  }

  private static OpenFile.Writer created(String path, FuseFileInfo fi) {
    assertThat(w.writes.create(path, FILE, fi)).isZero();
    return (OpenFile.Writer) w.open.get(fi.fh.get());
  }

  @Test
  void aFileWrittenFrontToBack_isPublishedAtItsFlush_aSkipReadingAsZeros() {
    FuseFileInfo fi = fileInfo(O_WRONLY);
    OpenFile.Writer writer = created("/stream", fi);

    assertThat(w.writes.write(writer, bytes("ab"), 2, 0, fi.fh.get())).isEqualTo(2);
    assertThat(w.writes.write(writer, bytes("cd"), 2, 4, fi.fh.get())).isEqualTo(2);
    assertThat(w.fs.findStatus("/stream")).as("not published yet").isEmpty();

    assertThat(w.writes.flush(writer)).isZero();
    assertThat(w.read("/stream")).isEqualTo("ab\0\0cd");
  }

  @Test
  void aSecondWriterOfAFileBeingWritten_isRefusedWithEbusy() {
    FuseFileInfo first = fileInfo(O_WRONLY);
    OpenFile.Writer writer = created("/busy", first);

    assertThat(w.writes.create("/busy", FILE, fileInfo(O_WRONLY))).isEqualTo(-Errno.EBUSY);

    w.writes.commit(writer);
    assertThat(w.read("/busy")).isEmpty();
  }

  @Test
  void aWriterThatGoesBack_publishesWhatItWrote_andGoesOnAsAChangeInPlace() {
    FuseFileInfo fi = fileInfo(O_WRONLY);
    OpenFile.Writer writer = created("/back", fi);
    w.writes.write(writer, bytes("hello"), 5, 0, fi.fh.get());

    assertThat(w.writes.write(writer, bytes("J"), 1, 0, fi.fh.get())).isEqualTo(1);

    assertThat(w.read("/back")).as("what it wrote first").isEqualTo("hello");
    OpenFile now = w.open.get(fi.fh.get());
    assertThat(now).isInstanceOf(Update.class);
    w.inPlace.release((Update) now);
    assertThat(w.read("/back")).isEqualTo("Jello");
  }

  @Test
  void aTruncateOfAFileBeingWritten_growsItWithZeros_orCutsWhatItPublished() {
    FuseFileInfo fi = fileInfo(O_WRONLY);
    OpenFile.Writer writer = created("/trunc", fi);
    w.writes.write(writer, bytes("abc"), 3, 0, fi.fh.get());

    assertThat(w.writes.truncate("/trunc", 5)).isZero();
    assertThat(w.writes.flush(writer)).isZero();
    assertThat(w.read("/trunc")).isEqualTo("abc\0\0");

    assertThat(w.writes.truncate("/trunc", 2)).isZero();
    assertThat(w.read("/trunc")).isEqualTo("ab");
  }
}
