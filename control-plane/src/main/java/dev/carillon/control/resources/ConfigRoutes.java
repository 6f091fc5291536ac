package dev.carillon.control.resources;

import dev.carillon.auth.Role;
import dev.carillon.client.model.ConfigChange;
import dev.carillon.client.model.ConfigEntry;
import dev.carillon.client.model.ConfigKeyView;
import dev.carillon.client.model.ConfigView;
import dev.carillon.client.model.FieldProblem;
import dev.carillon.client.model.RejectedRecord;
import dev.carillon.control.ControlPlane;
import dev.carillon.control.web.ApiException;
import dev.carillon.control.web.ApiRequest;
import dev.carillon.control.web.Reply;
import dev.carillon.control.web.Route;
import dev.carillon.model.InvalidValueException;
import dev.carillon.model.task.Problem;
import dev.carillon.model.tuning.InvalidTuningException;
import dev.carillon.model.tuning.TuningKey;
import dev.carillon.model.tuning.TuningValue;
import dev.carillon.spec.ConfigReplay;
import dev.carillon.spec.TuningJson;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

/**
 * {@code /api/v1/config}: the live configuration on the compacted config topic, as the retry
 * service applies it. Reads replay the topic with the service's own validator ({@link
 * ConfigReplay}): the value in force per key, and apart from it the records the service refuses.
 * Writes (admin only) validate with the same code and send the canonical form; a refused value
 * sends nothing.
 *
 * <p>Keys have one slash ({@code retry/default}, {@code retry/<task>}, {@code ratelimit/global}),
 * so the path carries them as two segments: {@code /config/retry/daily-digest}.
 */
public final class ConfigRoutes {
  private static final int MAX_SHOWN = 1000;

  private final ControlPlane plane;

  public ConfigRoutes(ControlPlane plane) {
    this.plane = plane;
  }

  /** The routes, in the order of the OpenAPI document. */
  public List<Route> routes() {
    return List.of(
        new Route(
            "GET",
            "/api/v1/config",
            Role.VIEWER,
            Set.of(),
            Route.Body.NONE,
            "Every key's value in force, and the records the retry service refuses",
            this::all),
        new Route(
            "GET",
            "/api/v1/config/{scope}/{name}",
            Role.VIEWER,
            Set.of(),
            Route.Body.NONE,
            "One key's value in force and its refused records",
            this::one),
        new Route(
            "PUT",
            "/api/v1/config/{scope}/{name}",
            Role.ADMIN,
            Set.of(),
            Route.Body.JSON,
            "Set a key (the body is the value), validated as the retry service does",
            this::set),
        new Route(
            "DELETE",
            "/api/v1/config/{scope}/{name}",
            Role.ADMIN,
            Set.of(),
            Route.Body.NONE,
            "Unset a key (a tombstone): the services fall back to their defaults",
            this::unset));
  }

  private Reply all(ApiRequest r) {
    ConfigReplay replay = ConfigReplay.of(plane.config().readAll(), plane.config().signer());
    return Reply.ok(
        new ConfigView(
            replay.inForce().values().stream().map(ConfigRoutes::entry).toList(),
            replay.rejected().stream().map(ConfigRoutes::rejected).toList()));
  }

  private Reply one(ApiRequest r) {
    TuningKey key = key(r);
    ConfigReplay replay = ConfigReplay.of(plane.config().readAll(), plane.config().signer());
    ConfigReplay.InForce inForce = replay.inForce().get(key.toString());
    return Reply.ok(
        new ConfigKeyView(
            key.toString(),
            inForce == null ? null : entry(inForce),
            replay.rejectedOf(key.toString()).stream().map(ConfigRoutes::rejected).toList()));
  }

  private Reply set(ApiRequest r) {
    TuningKey key = key(r);
    TuningValue value;
    try {
      value = TuningJson.parse(key, bodyText(r));
    } catch (InvalidTuningException e) {
      throw ApiException.badRequest(
          e.problems().stream()
              .map(p -> FieldProblem.of(p.field(), p.value(), p.message()))
              .toList());
    }
    String canonical = TuningJson.toJson(value);
    long offset = plane.config().put(key.toString(), canonical, r.actor());
    return Reply.ok(new ConfigChange(key.toString(), Views.json(canonical), offset));
  }

  private Reply unset(ApiRequest r) {
    TuningKey key = key(r);
    long offset = plane.config().put(key.toString(), null, r.actor());
    return Reply.ok(new ConfigChange(key.toString(), null, offset));
  }

  private static String bodyText(ApiRequest r) {
    return new String(r.rawBody(), StandardCharsets.UTF_8);
  }

  private static TuningKey key(ApiRequest r) {
    String key = r.path("scope") + "/" + r.path("name");
    try {
      return TuningKey.parse(key);
    } catch (InvalidValueException e) {
      Problem p = e.problem();
      throw ApiException.badRequest(p.field(), p.value(), p.message());
    }
  }

  private static ConfigEntry entry(ConfigReplay.InForce f) {
    return new ConfigEntry(
        f.key(),
        Views.json(TuningJson.toJson(f.value())),
        f.record().offset(),
        f.record().at(),
        f.record().actor());
  }

  private static RejectedRecord rejected(ConfigReplay.Rejected r) {
    String value = r.record().value();
    if (value != null && value.length() > MAX_SHOWN) {
      value = value.substring(0, MAX_SHOWN) + "...";
    }
    return new RejectedRecord(
        r.record().key(),
        value,
        r.record().offset(),
        r.record().at(),
        r.problems(),
        r.record().actor());
  }
}
