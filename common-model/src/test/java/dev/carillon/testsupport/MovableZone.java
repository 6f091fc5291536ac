package dev.carillon.testsupport;

import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneRules;
import java.time.zone.ZoneRulesProvider;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * A zone, {@value #ID}, whose rules a test replaces while the JVM runs, as a tzdata update replaces
 * a real zone's rules (installed with a newer JDK or tzupdater, then a restart).
 *
 * <p>Its provider is registered with {@link ZoneRulesProvider} once per JVM, the first time this
 * class is used, and is dynamic: it lets no {@link ZoneId} keep its rules, so {@code
 * ZoneId.of(ID).getRules()} always returns the rules last {@link #set}. The JDK's own zones cannot
 * be replaced this way, which is why the zone has its own id. Tests that use it set the rules they
 * need first, and share one zone: they must not run concurrently.
 */
public final class MovableZone {
  /** The zone's id. */
  public static final String ID = "Carillon/Movable";

  private static volatile ZoneRules rules = ZoneRules.of(ZoneOffset.UTC);
  private static volatile String version = "initial";

  static {
    ZoneRulesProvider.registerProvider(new Provider());
  }

  private MovableZone() {}

  /** The zone. */
  public static ZoneId zone() {
    return ZoneId.of(ID);
  }

  /**
   * Replaces the zone's rules from now on.
   *
   * @param newRules the rules, e.g. {@code ZoneRules.of(ZoneOffset.ofHours(3))}
   * @param newVersion what the provider calls them (tzdb calls its versions "2025b")
   */
  public static void set(ZoneRules newRules, String newVersion) {
    rules = Objects.requireNonNull(newRules, "newRules");
    version = Objects.requireNonNull(newVersion, "newVersion");
  }

  private static final class Provider extends ZoneRulesProvider {
    @Override
    protected Set<String> provideZoneIds() {
      return Set.of(ID);
    }

    @Override
    protected ZoneRules provideRules(String zoneId, boolean forCaching) {
      // Null for caching keeps the rules out of ZoneId objects, so that every lookup sees a change.
      return forCaching ? null : rules;
    }

    @Override
    protected NavigableMap<String, ZoneRules> provideVersions(String zoneId) {
      return new TreeMap<>(java.util.Map.of(version, rules));
    }
  }
}
