package dev.carillon.model.tuning;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 signatures of config-topic records, so that the retry service applies only the
 * overrides an operator's tool (schedctl, the control plane) wrote, even if someone else manages to
 * produce to the topic. Every writer signs with {@link #sign} and puts the result in the record
 * header {@link #HEADER}; the retry service checks it with {@link #verify}.
 *
 * <p>What is signed: the record key and the value (or the fact that it is a tombstone), framed so
 * that no two (key, value) pairs give the same bytes. A signature therefore cannot be moved to
 * another key or value. It does not stop an old, validly signed record of the same key from being
 * produced again (a replay); the topic's ACLs are the guard against that (see docs/security.md).
 *
 * <p>Keys: the secret file holds one secret per line (at least {@link #MIN_SECRET_BYTES} bytes,
 * e.g. {@code openssl rand -base64 48}; blank lines and {@code #} comments ignored). The first
 * signs; every line verifies, so a new secret is rolled out by putting it first and keeping the old
 * one below until every record has been written again.
 *
 * <p>Immutable and thread-safe.
 */
public final class ConfigSigner {
  /** The record header that carries the signature. */
  public static final String HEADER = "carillon-signature";

  /** The shortest secret accepted: as long as the HMAC's output. */
  public static final int MIN_SECRET_BYTES = 32;

  private static final String ALGORITHM = "HmacSHA256";
  private static final String PREFIX = "v1=";
  private static final byte[] DOMAIN = "carillon-config/v1".getBytes(StandardCharsets.UTF_8);

  /** What {@link #verify} found. */
  public enum Verdict {
    /** Signed by one of the secrets. */
    VALID,
    /** No signature header. */
    MISSING,
    /** A signature none of the secrets made, or one that is not even well formed. */
    INVALID
  }

  private final List<SecretKeySpec> secrets;

  private ConfigSigner(List<SecretKeySpec> secrets) {
    this.secrets = secrets;
  }

  /**
   * A signer from the secret file's text.
   *
   * @throws IllegalArgumentException naming the line when the file holds no secret or a secret is
   *     shorter than {@link #MIN_SECRET_BYTES} (the secret itself is never printed)
   */
  public static ConfigSigner fromSecretFile(String text) {
    List<SecretKeySpec> secrets = new ArrayList<>();
    String[] lines = text.split("\\R");
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
      if (bytes.length < MIN_SECRET_BYTES) {
        throw new IllegalArgumentException(
            "config.signing-secret line "
                + (i + 1)
                + " holds a secret of "
                + bytes.length
                + " bytes; at least "
                + MIN_SECRET_BYTES
                + " are needed (e.g. openssl rand -base64 48)");
      }
      secrets.add(new SecretKeySpec(bytes, ALGORITHM));
    }
    if (secrets.isEmpty()) {
      throw new IllegalArgumentException("config.signing-secret holds no secret");
    }
    return new ConfigSigner(List.copyOf(secrets));
  }

  /**
   * The signature of a record, for header {@link #HEADER}.
   *
   * @param key the record key
   * @param value the record value, or null for a tombstone
   */
  public String sign(String key, String value) {
    return PREFIX
        + Base64.getUrlEncoder().withoutPadding().encodeToString(mac(secrets.get(0), key, value));
  }

  /**
   * Checks a record's signature against every secret, in constant time per secret.
   *
   * @param signature the header's value, or null when the record has none
   */
  public Verdict verify(String key, String value, String signature) {
    if (signature == null) {
      return Verdict.MISSING;
    }
    if (!signature.startsWith(PREFIX)) {
      return Verdict.INVALID;
    }
    byte[] given;
    try {
      given = Base64.getUrlDecoder().decode(signature.substring(PREFIX.length()));
    } catch (IllegalArgumentException e) {
      return Verdict.INVALID;
    }
    for (SecretKeySpec secret : secrets) {
      if (MessageDigest.isEqual(given, mac(secret, key, value))) {
        return Verdict.VALID;
      }
    }
    return Verdict.INVALID;
  }

  /**
   * Why a record is refused, or empty when its signature is valid: the one wording the retry
   * service logs and the control plane shows for a rejected record.
   */
  public Optional<String> problem(String key, String value, String signature) {
    return switch (verify(key, value, signature)) {
      case VALID -> Optional.empty();
      case MISSING ->
          Optional.of("the record is not signed and config signing is on (config.signing-secret)");
      case INVALID -> Optional.of("the record's signature does not match config.signing-secret");
    };
  }

  private static byte[] mac(SecretKeySpec secret, String key, String value) {
    byte[] k = key == null ? new byte[0] : key.getBytes(StandardCharsets.UTF_8);
    byte[] v = value == null ? new byte[0] : value.getBytes(StandardCharsets.UTF_8);
    // domain | key length | key | 0 = tombstone, 1 = value | value
    ByteBuffer framed = ByteBuffer.allocate(DOMAIN.length + 4 + k.length + 1 + v.length);
    framed.put(DOMAIN).putInt(k.length).put(k).put((byte) (value == null ? 0 : 1)).put(v);
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(secret);
      return mac.doFinal(framed.array());
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }

  @Override
  public String toString() {
    return "ConfigSigner[" + secrets.size() + " secret(s)]";
  }
}
