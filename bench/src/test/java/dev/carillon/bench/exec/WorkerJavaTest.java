package dev.carillon.bench.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class WorkerJavaTest {
  @Test
  void the_feature_release_is_read_from_java_dash_version() {
    assertThat(
            WorkerJava.feature(
                "openjdk version \"17.0.15\" 2025-04-15\n"
                    + "OpenJDK Runtime Environment (build 17.0.15+6-Debian-1deb12u1)\n"))
        .isEqualTo(OptionalInt.of(17));
    assertThat(
            WorkerJava.feature(
                "openjdk version \"25.0.3\" 2026-04-21 LTS\n"
                    + "OpenJDK Runtime Environment Temurin-25.0.3+9 (build 25.0.3+9-LTS)\n"))
        .isEqualTo(OptionalInt.of(25));
    assertThat(WorkerJava.feature("java version \"1.8.0_392\"")).isEqualTo(OptionalInt.of(8));
    assertThat(WorkerJava.feature("openjdk version \"21\" 2023-09-19"))
        .isEqualTo(OptionalInt.of(21));
    assertThat(WorkerJava.feature("bash: java: command not found")).isEmpty();
  }

  @Test
  void virtual_threads_come_with_java_21() {
    assertThat(new WorkerJava(Path.of("java"), 17, "").hasVirtualThreads()).isFalse();
    assertThat(new WorkerJava(Path.of("java"), 20, "").hasVirtualThreads()).isFalse();
    assertThat(new WorkerJava(Path.of("java"), 21, "").hasVirtualThreads()).isTrue();
    assertThat(new WorkerJava(Path.of("java"), 25, "").hasVirtualThreads()).isTrue();
  }
}
