package dev.carillon.local;

import dev.carillon.auth.Principal;
import dev.carillon.auth.Role;
import dev.carillon.auth.TokenFile;
import dev.carillon.auth.Tokens;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The local stack's API token: minted at the first start of a data directory and kept there
 * ({@value #TOKEN_FILE}, readable by the owner only), so it stays the same across restarts; the
 * trigger reads only its hash ({@value #HASH_FILE}). The token is an admin's, for the one local
 * user.
 *
 * @param token the token to send as {@code Authorization: Bearer <token>}
 * @param tokensFile the tokens file the API reads
 */
record LocalApiToken(String token, Path tokensFile) {
  static final String TOKEN_FILE = "api-token";
  static final String HASH_FILE = "api-tokens";
  static final Principal LOCAL_ADMIN = new Principal("local-admin", Role.ADMIN);

  /** Reads the token of {@code dataDir}, or mints one; (re)writes the tokens file. */
  static LocalApiToken ensure(Path dataDir) {
    try {
      Files.createDirectories(dataDir);
      Path tokenFile = dataDir.resolve(TOKEN_FILE);
      String token;
      if (Files.isRegularFile(tokenFile)) {
        token = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
      } else {
        token = Tokens.mint();
        write(tokenFile, token + "\n");
      }
      Path hashes = dataDir.resolve(HASH_FILE);
      write(
          hashes,
          "# The local stack's API token (its text is in "
              + TOKEN_FILE
              + " beside this file).\n"
              + TokenFile.line(LOCAL_ADMIN, token)
              + "\n");
      return new LocalApiToken(token, hashes);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot keep the API token in " + dataDir, e);
    }
  }

  private static void write(Path file, String text) throws IOException {
    Files.writeString(file, text, StandardCharsets.UTF_8);
    try {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system (Windows): the directory's own permissions protect it
    }
  }
}
