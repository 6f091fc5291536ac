package dev.carillon.schedctl;

import dev.carillon.model.task.TaskDefinition;
import dev.carillon.spec.Format;
import dev.carillon.spec.InvalidSpecException;
import dev.carillon.spec.SpecProblem;
import dev.carillon.spec.SpecReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A task file, as {@code schedctl apply} and the local stack read it: the file's text, in the
 * format its name says ({@code .json} is JSON, anything else YAML), read by {@link SpecReader}
 * (which documents the format and every rule). This class only adds the file: an unreadable file is
 * a problem, not an exception, and a file far above the reader's limit is refused before it is read
 * into memory. Stateless and thread-safe.
 */
public final class TaskFile {
  private TaskFile() {}

  /**
   * Reads and checks the file at {@code file}.
   *
   * @return every definition in the file, in the order written
   * @throws InvalidSpecException listing every problem in the file (or that it cannot be read),
   *     each line naming the file and, where there is one, the line and column
   */
  public static List<TaskDefinition> read(Path file) {
    String name = file.toString();
    String text;
    try {
      long size = Files.size(file);
      if (size > 16L * SpecReader.MAX_TEXT_BYTES) {
        throw failed(
            name,
            "is " + size + " bytes; a task file may hold at most " + SpecReader.MAX_TEXT_BYTES);
      }
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw failed(name, "cannot be read: " + e);
    }
    return SpecReader.read(text, Format.ofFileName(name), name);
  }

  private static InvalidSpecException failed(String name, String message) {
    return new InvalidSpecException(
        List.of(new SpecProblem(name, 0, 0, null, null, null, message)));
  }
}
