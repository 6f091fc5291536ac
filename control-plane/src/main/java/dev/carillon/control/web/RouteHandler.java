package dev.carillon.control.web;

/** Answers one route's requests; runs on one of the API's threads and may block on the database. */
@FunctionalInterface
public interface RouteHandler {
  /**
   * @throws ApiException to refuse the request (nothing may have been changed)
   */
  Reply handle(ApiRequest request);
}
