package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.strata.client.FileSystem;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.net.HostPort;
import io.strata.core.proto.MasterServiceGrpc;
import io.strata.core.proto.WorkerServiceGrpc;
import io.strata.core.rpc.Channels;
import io.strata.core.security.ClusterSecret;
import io.strata.core.security.Credentials;
import io.strata.core.security.Role;
import io.strata.core.security.SecretFiles;
import io.strata.core.security.Tokens;
import io.strata.testkit.MiniCluster;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Iterator;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every gRPC method of the master and the worker against random and protobuf-shaped random
 * requests, sent by an authenticated user of a TOKEN-mode cluster (issue 25's fuzzing of the
 * services): each call ends with a status within its deadline, and both processes keep serving.
 * Seeded: {@code -Dstrata.fuzz.seed=N} replays a run.
 */
class ServiceFuzzTest {
  private static final int CALLS_PER_METHOD = 150;
  private static final String[] WORDS = {
    "/",
    "/shared",
    "/shared/x",
    "..",
    "/../..",
    "\u0000",
    "a".repeat(300),
    "/shared/" + "b".repeat(255),
    "s3://bucket",
    "TOKEN",
    "strata.worker.metadata.ttl",
    "-1",
    "",
    "/public.txt"
  };

  @TempDir Path dir;

  @Test
  void randomRequests_endWithAStatus_andTheClusterKeepsServing() throws Exception {
    long seed = Long.getLong("strata.fuzz.seed", System.nanoTime());
    System.out.println("service fuzz seed " + seed + " (-Dstrata.fuzz.seed=" + seed + ")");
    Path secretFile = SecretFiles.write(dir.resolve("secret"), SecretFiles.CLUSTER);
    ClusterSecret secret = ClusterSecret.load(secretFile);
    try (MiniCluster cluster =
        MiniCluster.builder()
            .workers(1)
            .property(SecurityKeys.MODE, "TOKEN")
            .property(SecurityKeys.SECRET_FILE, secretFile.toString())
            .start()) {
      Files.createDirectories(cluster.ufsRoot().resolve("shared"));
      Files.setPosixFilePermissions(
          cluster.ufsRoot().resolve("shared"), PosixFilePermissions.fromString("rwxrwxrwx"));
      Files.writeString(cluster.ufsRoot().resolve("public.txt"), "still here");
      Credentials mallory =
          Credentials.ofToken(
              Tokens.issue(secret, "mallory", Role.USER, Instant.now().plusSeconds(3600)));
      Random r = new Random(seed);
      int calls = 0;
      HostPort master = new HostPort("127.0.0.1", cluster.master(0).rpcPort());
      HostPort worker = new HostPort("127.0.0.1", cluster.worker(0).rpcPort());
      calls += fuzz(master, mallory, MasterServiceGrpc.getServiceDescriptor(), r);
      calls += fuzz(worker, mallory, WorkerServiceGrpc.getServiceDescriptor(), r);
      System.out.println("service fuzz: " + calls + " calls");

      try (FileSystem fs = FileSystem.create(cluster.clientConf())) {
        assertThat(fs.getStatus("/public.txt").length())
            .as("the cluster still serves")
            .isEqualTo(10);
      }
      assertThat(Files.readString(cluster.ufsRoot().resolve("public.txt"))).isEqualTo("still here");
    }
  }

  private static int fuzz(HostPort target, Credentials who, ServiceDescriptor service, Random r)
      throws InterruptedException {
    ManagedChannel channel = Channels.open(target, who);
    int calls = 0;
    try {
      for (var m : service.getMethods()) {
        MethodDescriptor<byte[], byte[]> raw =
            MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(m.getType())
                .setFullMethodName(m.getFullMethodName())
                .setRequestMarshaller(BYTES)
                .setResponseMarshaller(BYTES)
                .build();
        for (int i = 0; i < CALLS_PER_METHOD; i++) {
          call(channel, raw, r.nextBoolean() ? randomBytes(r) : protobufShaped(r), r);
          calls++;
        }
      }
    } finally {
      Channels.close(channel);
    }
    return calls;
  }

  private static void call(
      ManagedChannel channel, MethodDescriptor<byte[], byte[]> m, byte[] request, Random r)
      throws InterruptedException {
    CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS);
    try {
      switch (m.getType()) {
        case UNARY -> ClientCalls.blockingUnaryCall(channel, m, options, request);
        case SERVER_STREAMING -> {
          Iterator<byte[]> answers =
              ClientCalls.blockingServerStreamingCall(channel, m, options, request);
          while (answers.hasNext()) {
            answers.next();
          }
        }
        default -> {
          CountDownLatch done = new CountDownLatch(1);
          StreamObserver<byte[]> in =
              ClientCalls.asyncClientStreamingCall(
                  channel.newCall(m, options),
                  new StreamObserver<>() {
                    @Override
                    public void onNext(byte[] value) {}

                    @Override
                    public void onError(Throwable t) {
                      done.countDown();
                    }

                    @Override
                    public void onCompleted() {
                      done.countDown();
                    }
                  });
          int n = 1 + r.nextInt(3);
          for (int k = 0; k < n; k++) {
            in.onNext(k == 0 ? request : randomBytes(r));
          }
          in.onCompleted();
          assertThat(done.await(15, TimeUnit.SECONDS))
              .as(m.getFullMethodName() + " ended")
              .isTrue();
        }
      }
    } catch (StatusRuntimeException e) {
      assertThat(e.getStatus().getCode())
          .as(m.getFullMethodName() + ": " + e.getStatus())
          .isNotEqualTo(io.grpc.Status.Code.DEADLINE_EXCEEDED);
    }
  }

  private static byte[] randomBytes(Random r) {
    byte[] b = new byte[r.nextInt(200)];
    r.nextBytes(b);
    return b;
  }

  /** Fields 1 to 12, varints and length-delimited values (words, random bytes, nested). */
  private static byte[] protobufShaped(Random r) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int fields = r.nextInt(6);
    for (int i = 0; i < fields; i++) {
      int field = 1 + r.nextInt(12);
      if (r.nextBoolean()) {
        varint(out, (long) field << 3);
        varint(out, r.nextInt(4) == 0 ? r.nextLong() : r.nextInt(1 << 20));
      } else {
        byte[] value =
            switch (r.nextInt(3)) {
              case 0 -> WORDS[r.nextInt(WORDS.length)].getBytes(StandardCharsets.UTF_8);
              case 1 -> randomBytes(r);
              default -> protobufShaped(r);
            };
        varint(out, ((long) field << 3) | 2);
        varint(out, value.length);
        out.writeBytes(value);
      }
    }
    return out.toByteArray();
  }

  private static void varint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7FL) != 0) {
      out.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  private static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }
      };
}
