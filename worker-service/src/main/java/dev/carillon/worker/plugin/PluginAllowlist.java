package dev.carillon.worker.plugin;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The SHA-256 sums of the plugin jars a worker may load ({@code worker.plugin-allowlist}), in the
 * format {@code sha256sum} prints: one {@code <64 hex digits> <file name>} per line, {@code #}
 * comments and blank lines ignored. A jar is allowed by its content, whatever its file name; the
 * name on the line is for the reader.
 *
 * <p>Why: the plugin directory is a volume, and whatever is in it runs inside the worker with the
 * worker's database and Kafka credentials. With the allowlist, a jar put there without also
 * changing the allowlist (a separate, reviewed configuration) stops the worker at start instead of
 * running.
 */
public final class PluginAllowlist {
  private static final Pattern LINE = Pattern.compile("([0-9a-fA-F]{64})\\s+\\*?(.*)");

  private final Path file;
  private final Set<String> sums;

  private PluginAllowlist(Path file, Set<String> sums) {
    this.file = file;
    this.sums = sums;
  }

  /**
   * Reads the allowlist.
   *
   * @throws PluginException naming the file and the line when it cannot be read or a line is not
   *     {@code <sha256> <name>}
   */
  public static PluginAllowlist read(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new PluginException("cannot read worker.plugin-allowlist " + file + ": " + e, e);
    }
    Set<String> sums = new TreeSet<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      Matcher m = LINE.matcher(line);
      if (!m.matches()) {
        throw new PluginException(
            "worker.plugin-allowlist "
                + file
                + " line "
                + (i + 1)
                + " is '"
                + line
                + "', not '<sha256 in 64 hex digits> <jar name>' (as sha256sum prints it)");
      }
      sums.add(m.group(1).toLowerCase(Locale.ROOT));
    }
    return new PluginAllowlist(file, sums);
  }

  /**
   * Checks every jar against the list.
   *
   * @throws PluginException naming every jar that is not on it, with its SHA-256, so that an
   *     operator who means to allow it can copy the line
   */
  void check(List<Path> jars) {
    List<String> refused = new ArrayList<>();
    for (Path jar : jars) {
      String sum = sha256(jar);
      if (!sums.contains(sum)) {
        refused.add(sum + "  " + jar.getFileName());
      }
    }
    if (!refused.isEmpty()) {
      throw new PluginException(
          "plugin jar(s) not on worker.plugin-allowlist "
              + file
              + ", so the worker loads none: "
              + String.join(", ", refused)
              + " (add a line to allow one, or remove it from the plugin directory)");
    }
  }

  /** The SHA-256 of a file in lower-case hex. */
  static String sha256(Path file) {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
    try (InputStream in = new DigestInputStream(Files.newInputStream(file), digest)) {
      in.transferTo(OutputStream.nullOutputStream());
    } catch (IOException e) {
      throw new PluginException("cannot read plugin jar " + file + ": " + e, e);
    }
    return HexFormat.of().formatHex(digest.digest());
  }

  @Override
  public String toString() {
    return "PluginAllowlist[" + file + ", " + sums.size() + " sum(s)]";
  }
}
