package dev.carillon.schedctl;

import dev.carillon.client.model.InstanceChange;
import dev.carillon.model.instance.Instance;

/** What {@code cancel} and {@code rerun} share: finding the instance, reporting the change. */
final class InstanceChanges {
  private InstanceChanges() {}

  /**
   * Prints a change the API made; {@code withPublished} adds whether the instance went to the
   * workers (a re-run publishes, a cancel does not).
   */
  static int printRemote(Session session, long id, InstanceChange c, boolean withPublished) {
    Output out = session.output();
    if (out.json()) {
      out.printJson(c);
    } else {
      out.line(
          "instance "
              + id
              + ": "
              + c.previousStatus()
              + " -> "
              + c.instance().status()
              + (withPublished
                  ? (c.published() ? ", published" : ", to be published by the stranded scan")
                  : ""));
    }
    return Schedctl.OK;
  }

  /** The instance as the database holds it now, or bad input naming the id. */
  static Instance find(Db db, long id) {
    return db.operator()
        .find(id)
        .orElseThrow(() -> CliException.badInput("no instance with id " + id));
  }

  /** The error for a compare-and-set that lost: the instance moved on since it was read. */
  static CliException changedWhile(long id, String doing, Instance seen) {
    return CliException.badInput(
        "instance "
            + id
            + " changed while "
            + doing
            + " it (it is no longer "
            + seen.status()
            + " at attempt "
            + seen.attempt()
            + "); look again and retry");
  }
}
