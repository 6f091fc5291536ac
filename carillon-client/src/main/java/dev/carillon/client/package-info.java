/**
 * The Java client of Carillon's HTTP API: {@link dev.carillon.client.CarillonClient}, the task spec
 * builder {@link dev.carillon.client.TaskSpec}, and the exceptions a call may throw. The JSON
 * shapes it reads and writes are the records of {@code dev.carillon.client.model}. See
 * docs/client-guide.md.
 */
@Stability.Evolving
package dev.carillon.client;

import dev.carillon.api.Stability;
