package dev.carillon.control.auth;

import dev.carillon.auth.Principal;
import dev.carillon.auth.Role;
import dev.carillon.auth.TokenFile;
import dev.carillon.auth.Tokens;
import dev.carillon.client.model.FieldProblem;
import dev.carillon.control.web.ApiException;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Who a request comes from: the bearer token of its {@code Authorization} header, looked up by hash
 * in the tokens file. Or, in an insecure local setup ({@code api.insecure-local=true}, no tokens
 * file), everyone is {@link #LOCAL}, an admin.
 */
public final class Authenticator {
  /** The caller of an insecure local API. */
  public static final Principal LOCAL = new Principal("local", Role.ADMIN);

  private static final String REALM = "Bearer realm=\"carillon\"";

  private final Optional<TokenFile> tokens;

  private Authenticator(Optional<TokenFile> tokens) {
    this.tokens = tokens;
  }

  /** Checks tokens against {@code file}. */
  public static Authenticator of(TokenFile file) {
    return new Authenticator(Optional.of(Objects.requireNonNull(file, "file")));
  }

  /** Lets every request in as {@link #LOCAL}: only for a local, single-user setup. */
  public static Authenticator insecureLocal() {
    return new Authenticator(Optional.empty());
  }

  /** Whether requests are let in without a token. */
  public boolean insecure() {
    return tokens.isEmpty();
  }

  /**
   * A caller: who, and the key their request rate is counted under (one per token).
   *
   * @param rateKey the token's hash, or {@code local}
   */
  public record Caller(Principal principal, String rateKey) {}

  /**
   * @param authorization the {@code Authorization} header, or null
   * @throws ApiException 401 with {@code WWW-Authenticate: Bearer} when the token is missing,
   *     malformed or unknown (the token itself is never repeated)
   */
  public Caller authenticate(String authorization) {
    if (tokens.isEmpty()) {
      return new Caller(LOCAL, "local");
    }
    if (authorization == null || authorization.isBlank()) {
      throw unauthorized(
          null, "a bearer token is required: send 'Authorization: Bearer <token>'", REALM);
    }
    String a = authorization.strip();
    if (!a.toLowerCase(Locale.ROOT).startsWith("bearer ")) {
      throw unauthorized(
          a.split("\\s+")[0] + " ...",
          "must be 'Bearer <token>'",
          REALM + ", error=\"invalid_request\"");
    }
    String token = a.substring("bearer ".length()).strip();
    Optional<Principal> p = tokens.get().lookup(token);
    if (p.isEmpty()) {
      throw unauthorized(
          "Bearer (not shown)",
          "is not a known token (revoked, mistyped, or issued for another deployment)",
          REALM + ", error=\"invalid_token\"");
    }
    return new Caller(p.get(), Tokens.hash(token));
  }

  private static ApiException unauthorized(String value, String message, String challenge) {
    return ApiException.of(
            401,
            "Authorization " + message,
            List.of(FieldProblem.of("Authorization", value, message)))
        .withHeader("WWW-Authenticate", challenge);
  }
}
