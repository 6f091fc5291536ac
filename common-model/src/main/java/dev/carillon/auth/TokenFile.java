package dev.carillon.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The tokens file (a mounted secret): one token per line, {@code <principal> <role> sha256:<hex>},
 * blank lines and {@code #} comments ignored. Only hashes are stored; a request's token is hashed
 * and looked up. Several lines may name the same principal (a token per client, or an old and a new
 * one while rotating); a hash may appear once.
 *
 * <pre>
 * # principal  role      token hash
 * alice        operator  sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
 * ci           viewer    sha256:...
 * </pre>
 */
public final class TokenFile {
  private static final Pattern HASH = Pattern.compile("sha256:[0-9a-f]{64}");

  private final Map<String, Principal> byHash;

  private TokenFile(Map<String, Principal> byHash) {
    this.byHash = Collections.unmodifiableMap(byHash);
  }

  /** One line of the file for {@code token}, ready to append. */
  public static String line(Principal principal, String token) {
    return principal.name() + " " + principal.role().label() + " " + Tokens.hash(token);
  }

  /**
   * Reads and checks the file.
   *
   * @throws IllegalArgumentException naming the file, the line number and what is wrong (the hash
   *     itself is never repeated in a message), or when the file cannot be read
   */
  public static TokenFile read(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "tokens file " + file + " cannot be read: " + e.getMessage(), e);
    }
    return parse(text, file.toString());
  }

  /**
   * Parses the file's text.
   *
   * @param source names the file in messages
   * @throws IllegalArgumentException naming the source, the line number and the problem
   */
  public static TokenFile parse(String text, String source) {
    Map<String, Principal> byHash = new HashMap<>();
    List<String> problems = new ArrayList<>();
    String[] lines = text.split("\r?\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String where = source + " line " + (i + 1) + ": ";
      String[] parts = line.split("\\s+");
      if (parts.length != 3) {
        problems.add(
            where
                + "expected '<principal> <role> sha256:<hex>', found "
                + parts.length
                + " fields");
        continue;
      }
      Role role;
      Principal principal;
      try {
        role = Role.parse(parts[1]);
        principal = new Principal(parts[0], role);
      } catch (IllegalArgumentException e) {
        problems.add(where + e.getMessage());
        continue;
      }
      String hash = parts[2].toLowerCase(java.util.Locale.ROOT);
      if (!HASH.matcher(hash).matches()) {
        problems.add(
            where
                + "the token hash must be sha256: and 64 hex digits (a token itself, crl_..., does"
                + " not belong in this file)");
        continue;
      }
      if (byHash.putIfAbsent(hash, principal) != null) {
        problems.add(where + "the same token hash appears on an earlier line");
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
    return new TokenFile(byHash);
  }

  /** Who {@code token} belongs to, if anyone. */
  public Optional<Principal> lookup(String token) {
    if (token == null || token.isEmpty()) {
      return Optional.empty();
    }
    return Optional.ofNullable(byHash.get(Tokens.hash(token)));
  }

  /** How many tokens the file holds. */
  public int size() {
    return byHash.size();
  }
}
