package dev.carillon.worker.exec;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The file an exec agent finds named by {@value #ENV}: the context's {@code resume} object (the
 * last checkpoint and the effects earlier attempts left), for programs that read files more easily
 * than stdin, such as shell scripts. Written before the command starts, readable by the worker's
 * user only, and deleted when the run ends.
 */
final class ResumeFile {
  /** The environment variable naming the file. */
  static final String ENV = "CARILLON_RESUME_FILE";

  private static final Logger log = LoggerFactory.getLogger(ResumeFile.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private ResumeFile() {}

  /** Writes {@code resume} to a new file in the temporary directory. */
  static Path write(ObjectNode resume) throws IOException {
    Path file =
        FileSystems.getDefault().supportedFileAttributeViews().contains("posix")
            ? Files.createTempFile(
                "carillon-resume-",
                ".json",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))
            : Files.createTempFile("carillon-resume-", ".json");
    try {
      Files.write(file, JSON.writeValueAsBytes(resume));
    } catch (IOException e) {
      delete(file);
      throw e;
    }
    return file;
  }

  /** Deletes the file; a failure is logged, not thrown (the run's end does not depend on it). */
  static void delete(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      log.warn("Could not delete the resume file {}: {}", file, e.toString());
    }
  }
}
