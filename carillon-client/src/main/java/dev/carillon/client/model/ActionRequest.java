package dev.carillon.client.model;

import dev.carillon.api.Stability;

/**
 * The optional body of a cancel or a re-run.
 *
 * @param reason recorded in the instance's history beside the caller's name
 * @param fromScratch for a re-run: true discards the attempts' checkpoints and effects, so the run
 *     starts from nothing and performs every effect again; false or null (the default) keeps them,
 *     so it resumes and skips effects already done. Refused on a cancel
 */
@Stability.Evolving
public record ActionRequest(String reason, Boolean fromScratch) {

  /**
   * A request with only a reason.
   *
   * @param reason the reason, or null
   */
  public ActionRequest(String reason) {
    this(reason, null);
  }
}
