package dev.carillon.store;

import java.util.Locale;

/**
 * The PostgreSQL roles the migrations create, one per kind of client, each with the least grants
 * its statements need (see {@code R__service_roles.sql} and docs/security.md).
 */
public enum DbRole {
  /** The trigger service: creates instances, cursors and offsets; reads definitions. */
  TRIGGER,
  /** Workers: claim, renew, end and release instances (only the columns of a run). */
  WORKER,
  /** The retry service: timeouts, retry decisions, promotions, republication, archiving. */
  RETRY,
  /** The control plane and schedctl: definitions, manual runs, backfills, cancel and re-run. */
  API,
  /** Dashboards: reads everything, changes nothing. */
  READONLY;

  /** The role's name with {@code prefix}, e.g. {@code carillon_worker}. */
  public String roleName(String prefix) {
    return prefix + name().toLowerCase(Locale.ROOT);
  }

  /** The lower-case name used in configuration keys, e.g. {@code roles.worker.password}. */
  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }
}
