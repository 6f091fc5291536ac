package dev.carillon.control;

import dev.carillon.model.instance.Instance;
import java.util.List;

/**
 * Publishes instances the API made PENDING (run now, re-run, backfill) so a worker starts them at
 * once. The database is the truth: an instance that is not acknowledged stays PENDING and
 * undispatched, and the trigger's dispatch sweep or the retry service's stranded scan publishes it.
 */
@FunctionalInterface
public interface InstanceDispatch {
  /**
   * @return the ids Kafka acknowledged (each now stamped dispatched); possibly fewer than given
   */
  List<Long> publish(List<Instance> instances);
}
