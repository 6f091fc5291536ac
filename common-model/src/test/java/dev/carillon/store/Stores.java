package dev.carillon.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.instance.Instance;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The instance stores on one fresh database, with the steps their tests share: a task, a PENDING
 * instance, a claimed one, and a race of threads released at the same instant.
 */
final class Stores implements AutoCloseable {
  final Database db;
  final TaskStore tasks;
  final WindowStore windows;
  final LeaseStore leases;
  final RetryStore retries;
  final OperatorStore operator;

  /** The epochs the leader-only writes of these tests carry, taken once per database. */
  final Fence retryFence;

  final Fence triggerFence;

  private Stores(Database db) {
    this.db = db;
    this.tasks = new TaskStore(db.dsl());
    this.windows = new WindowStore(db.dsl());
    this.leases = new LeaseStore(db.dsl());
    this.retries = new RetryStore(db.dsl());
    this.operator = new OperatorStore(db.dsl());
    EpochStore epochs = new EpochStore(db.dsl());
    this.retryFence = epochs.begin("retry", "test");
    this.triggerFence = epochs.begin("trigger", "test");
  }

  static Stores fresh(String prefix) {
    return new Stores(TestDatabase.fresh(prefix));
  }

  /** Stores on a fresh database whose pool holds {@code poolSize} connections. */
  static Stores fresh(String prefix, int poolSize) {
    return new Stores(TestDatabase.fresh(prefix, poolSize, ""));
  }

  @Override
  public void close() {
    db.close();
  }

  String newTask(String id) {
    tasks.applyAll(List.of(Tasks.daily(id).build()));
    return id;
  }

  Instance newPending(String task, String day) {
    return windows.create(List.of(Tasks.pending(task, day, Duration.ofMinutes(5))), "test").get(0);
  }

  Instance claimOne(String task, String day, String worker) {
    Instance pending = newPending(task, day);
    return leases.claim(List.of(pending.id()), worker).get(0);
  }

  Instance claimKey(String task, String key, String worker) {
    Instance p =
        windows.create(List.of(Tasks.pendingKey(task, key, Duration.ofMinutes(5))), "t").get(0);
    return leases.claim(List.of(p.id()), worker).get(0);
  }

  /** Runs {@code n} copies of {@code body} released at the same instant; returns their results. */
  static <T> List<T> race(int n, Callable<T> body) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      CountDownLatch ready = new CountDownLatch(n);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        futures.add(
            pool.submit(
                () -> {
                  ready.countDown();
                  go.await();
                  return body.call();
                }));
      }
      assertThat(ready.await(30, TimeUnit.SECONDS)).isTrue();
      go.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> f : futures) {
        results.add(f.get(60, TimeUnit.SECONDS));
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }
}
