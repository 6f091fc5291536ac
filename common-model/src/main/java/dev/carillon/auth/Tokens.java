package dev.carillon.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * API bearer tokens: minted random, stored only as hashes. A token is {@code crl_} followed by 32
 * random bytes in unpadded base64url (43 characters); its hash is {@code sha256:} and the hex of
 * the SHA-256 of the token's UTF-8 bytes. A plain hash suffices (no salt, no slow hash): the token
 * carries 256 random bits, so nothing can be guessed from its hash, and lookups stay one hash per
 * request. Used by the API server, the local stack and {@code schedctl token new}.
 */
public final class Tokens {
  /** Every token starts with this, so a leaked one is easy to recognise (and to scan for). */
  public static final String PREFIX = "crl_";

  /** The prefix of a stored hash. */
  public static final String HASH_PREFIX = "sha256:";

  private static final SecureRandom RANDOM = new SecureRandom();

  private Tokens() {}

  /** A new random token. */
  public static String mint() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** {@code sha256:<hex>} of {@code token}. */
  public static String hash(String token) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
      return HASH_PREFIX + HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
