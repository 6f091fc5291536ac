package dev.carillon.agents;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;

/**
 * Where {@link DigestAgent} posts its digest in the examples and tests: a directory standing in for
 * a chat channel or a mailing list. Every post is a new file, so posting twice shows as two files
 * and {@link #posts} counts them.
 *
 * <p>A real channel's API usually accepts an idempotency key and drops a second post with the same
 * key, which closes the gap {@code AgentContext.once} leaves (the post made, the record not
 * written). This sink deliberately does not: it keeps the key in the post's first line, so that a
 * test sees a repeated post instead of having it hidden.
 */
final class DirectorySink {
  private final Path dir;

  DirectorySink(Path dir) {
    this.dir = dir;
  }

  /**
   * Posts {@code text} as a new file, written whole (a temporary file moved into place).
   *
   * @return the post's id, the file name
   */
  String post(String text, String idempotencyKey) throws IOException {
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, ".post-", ".tmp");
    try {
      Files.writeString(
          tmp, "Idempotency-Key: " + idempotencyKey + "\n\n" + text, StandardCharsets.UTF_8);
      Path post = Files.createTempFile(dir, "post-", ".md");
      Files.move(tmp, post, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return post.getFileName().toString();
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** How many posts the directory holds. */
  static long posts(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().startsWith("post-")).count();
    }
  }
}
