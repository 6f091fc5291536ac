package dev.carillon.devstack;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The directory a stack keeps its servers' data in, owned by one stack at a time.
 *
 * <p>Ownership is an operating-system file lock on {@value #LOCK_FILE}, held from {@link #open}
 * until {@link #close()}. The system drops it when the owning process dies, however it dies, so a
 * stack that can take the lock knows that no live stack uses the directory, and that anything still
 * running on it (a PostgreSQL server started by a JVM that was killed with -9) is an orphan it may
 * stop. The lock file holds the owner's process id for the message a second stack gets.
 */
final class StackDirectory implements AutoCloseable {
  static final String LOCK_FILE = "devstack.lock";

  private final Path path;
  private final boolean temporary;
  private final FileChannel channel;
  private final FileLock lock;

  private StackDirectory(Path path, boolean temporary, FileChannel channel, FileLock lock) {
    this.path = path;
    this.temporary = temporary;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Takes {@code dir} for this process, creating it if needed; {@code null} means a new temporary
   * directory under {@code java.io.tmpdir}, deleted on close.
   *
   * @throws DevStackException when another stack (in this or another process) owns the directory
   */
  static StackDirectory open(Path dir) {
    boolean temporary = dir == null;
    Path path;
    try {
      if (temporary) {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        Files.createDirectories(tmp);
        path = Files.createTempDirectory(tmp, "carillon-devstack-");
      } else {
        path = dir;
        Files.createDirectories(path);
      }
    } catch (IOException e) {
      throw new DevStackException("cannot create data directory " + dir + ": " + e, e);
    }
    Path lockFile = path.resolve(LOCK_FILE);
    FileChannel channel = null;
    try {
      channel =
          FileChannel.open(
              lockFile,
              StandardOpenOption.CREATE,
              StandardOpenOption.READ,
              StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        throw inUse(path, "another DevStack in this JVM");
      }
      if (lock == null) {
        throw inUse(path, "process " + owner(lockFile));
      }
      channel.truncate(0);
      channel.write(
          ByteBuffer.wrap(
              Long.toString(ProcessHandle.current().pid()).getBytes(StandardCharsets.US_ASCII)));
      channel.force(false);
      return new StackDirectory(path, temporary, channel, lock);
    } catch (IOException | RuntimeException e) {
      closeQuietly(channel);
      if (e instanceof DevStackException dse) {
        throw dse;
      }
      throw new DevStackException("cannot lock data directory " + path + ": " + e, e);
    }
  }

  Path path() {
    return path;
  }

  /** Whether the directory is a temporary one that {@link #close()} deletes. */
  boolean temporary() {
    return temporary;
  }

  /**
   * Deletes everything in the directory except the lock file and the files named in {@code keep}.
   */
  void wipe(Set<String> keep) throws IOException {
    List<Path> children;
    try (Stream<Path> list = Files.list(path)) {
      children = list.toList();
    }
    for (Path child : children) {
      String name = child.getFileName().toString();
      if (!name.equals(LOCK_FILE) && !keep.contains(name)) {
        deleteRecursively(child);
      }
    }
  }

  /** Releases the directory (deleting it if it is temporary). */
  @Override
  public void close() throws IOException {
    try {
      lock.release();
    } finally {
      channel.close();
    }
    if (temporary) {
      deleteRecursively(path);
    }
  }

  private static DevStackException inUse(Path path, String owner) {
    return new DevStackException(
        "data directory "
            + path
            + " is in use by "
            + owner
            + "; stop that stack first or choose another directory");
  }

  private static String owner(Path lockFile) {
    try {
      String pid = Files.readString(lockFile, StandardCharsets.US_ASCII).strip();
      return pid.isEmpty() ? "another process" : pid;
    } catch (IOException e) {
      return "another process";
    }
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // Already failing; the first error is the one to report.
      }
    }
  }

  static void deleteRecursively(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Files.delete(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            if (e != null) {
              throw e;
            }
            Files.delete(dir);
            return FileVisitResult.CONTINUE;
          }
        });
  }
}
