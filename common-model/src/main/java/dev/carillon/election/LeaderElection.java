package dev.carillon.election;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.framework.recipes.locks.StandardLockInternalsDriver;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One service instance's candidacy for leadership of its service, over a Curator {@link
 * LeaderLatch} at {@code /carillon/<service>/leader}.
 *
 * <p>Leadership is lost <em>at once</em> when the ZooKeeper connection is {@link
 * ConnectionState#SUSPENDED SUSPENDED} or {@link ConnectionState#LOST LOST}, not only when the
 * session is known to have expired: while suspended, this instance cannot tell whether another has
 * already taken over, so its tick loop must stop. When the connection comes back the candidate
 * rejoins the election and may be granted leadership again.
 *
 * <p>The {@link Listener} sees strictly alternating calls, starting with {@link
 * Listener#onLeadership()}; it is called on Curator's event threads under this object's lock, so it
 * must return quickly (start or stop the loop, do not run it). If the candidate leads when it is
 * closed, the listener hears {@link Listener#onLossOfLeadership()} before {@link #close()} returns.
 *
 * <p>Lifecycle: latent → {@link #start()} → started → {@link #close()} → closed; each step happens
 * once, guarded by compare-and-set. The Curator client belongs to the caller and stays open.
 */
public final class LeaderElection implements AutoCloseable {
  /** Hears leadership changes; see the class comment for threading. */
  public interface Listener {
    /** This candidate is now the leader: start the work only a leader does. */
    void onLeadership();

    /** This candidate is no longer the leader, or may not be: stop that work now. */
    void onLossOfLeadership();
  }

  private enum State {
    LATENT,
    STARTED,
    CLOSED
  }

  private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);
  private static final Pattern SERVICE = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");

  /** The part of a LeaderLatch node's name before its sequence number. */
  private static final String LATCH_NODE = "latch-";

  private final CuratorFramework client;
  private final String path;
  private final String participantId;
  private final Listener listener;
  private final LeaderLatch latch;
  private final Optional<ZkDigest> digest;
  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final ConnectionStateListener connectionListener = this::onConnectionState;
  private volatile boolean leader;

  /**
   * @param client a started Curator client (see {@link Zk#connect}); not closed by this class
   * @param service the service name, e.g. {@code trigger}: lower-case letters, digits and dashes
   * @param participantId this candidate's id as shown to operators, e.g. {@code host:pid}
   * @param listener told about leadership changes
   */
  public LeaderElection(
      CuratorFramework client, String service, String participantId, Listener listener) {
    this(client, service, participantId, Optional.empty(), listener);
  }

  /**
   * Like {@link #LeaderElection(CuratorFramework, String, String, Listener)}, for a client that
   * authenticates as {@code digest}: {@link #start()} first makes the election's nodes usable by
   * that identity only (see {@link Zk#secure}).
   */
  public LeaderElection(
      CuratorFramework client,
      String service,
      String participantId,
      Optional<ZkDigest> digest,
      Listener listener) {
    this.digest = Objects.requireNonNull(digest, "digest");
    this.client = Objects.requireNonNull(client, "client");
    if (service == null || !SERVICE.matcher(service).matches()) {
      throw new IllegalArgumentException(
          "service must match " + SERVICE.pattern() + ", was '" + service + "'");
    }
    if (participantId == null || participantId.isBlank()) {
      throw new IllegalArgumentException(
          "participantId must not be blank, was '" + participantId + "'");
    }
    this.path = "/carillon/" + service + "/leader";
    this.participantId = participantId;
    this.listener = Objects.requireNonNull(listener, "listener");
    this.latch = new LeaderLatch(client, path, participantId);
  }

  /**
   * Joins the election. Returns at once (with a digest, once the election's nodes are secured); the
   * listener hears when leadership is granted.
   *
   * @throws IllegalStateException if already started or closed, or when the election's nodes cannot
   *     be secured
   */
  public void start() {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException(
          "LeaderElection "
              + participantId
              + " at "
              + path
              + " cannot be started: it is "
              + state.get());
    }
    // With digest authentication, the election's nodes must be Carillon's before it joins.
    digest.ifPresent(d -> Zk.secure(client, path, d));
    client.getConnectionStateListenable().addListener(connectionListener);
    latch.addListener(
        new LeaderLatchListener() {
          @Override
          public void isLeader() {
            transition(true, "granted by the latch");
          }

          @Override
          public void notLeader() {
            transition(false, "revoked by the latch");
          }
        });
    try {
      latch.start();
    } catch (Exception e) {
      throw new IllegalStateException("cannot join the election at " + path, e);
    }
    log.info("{} joined the election at {}", participantId, path);
  }

  /** Whether this candidate leads now. False as soon as the connection is suspended. */
  public boolean isLeader() {
    return leader;
  }

  /**
   * Asks ZooKeeper now, rather than trusting the last event ({@link #isLeader()}), whether this
   * candidate leads: its latch node exists and comes first among the candidates' nodes. A candidate
   * whose session expired while it was frozen has lost that node (and, reconnected, waits at the
   * back with a new one), so it is not confirmed even before Curator has told it so.
   *
   * @return false when it does not lead, or ZooKeeper cannot be asked (within Curator's retries)
   */
  public boolean confirm() {
    if (!leader || state.get() != State.STARTED) {
      return false;
    }
    String ours = latch.getOurPath();
    if (ours == null) {
      return false;
    }
    try {
      List<String> children = client.getChildren().forPath(path);
      Optional<String> first =
          children.stream()
              .filter(c -> c.contains(LATCH_NODE))
              .min(
                  Comparator.comparing(
                      c -> StandardLockInternalsDriver.standardFixForSorting(c, LATCH_NODE)));
      return first.isPresent() && first.get().equals(ZKPaths.getNodeFromPath(ours));
    } catch (Exception e) {
      log.warn(
          "{} cannot confirm its leadership at {} with ZooKeeper: {}",
          participantId,
          path,
          e.toString());
      return false;
    }
  }

  /**
   * Whether this candidate takes part in the election now: started, connected to ZooKeeper, and
   * holding a latch node, so that it becomes the leader when the nodes before it go. A candidate
   * whose session was lost is not, until it has reconnected and queued again; a health report shows
   * this, so that an operator (and the fault suite) can tell a standby that would take over from
   * one that could not.
   */
  public boolean joined() {
    return state.get() == State.STARTED
        && client.getZookeeperClient().isConnected()
        && latch.getOurPath() != null;
  }

  /** This candidate's id. */
  public String participantId() {
    return participantId;
  }

  /** The ZooKeeper path of the election, {@code /carillon/<service>/leader}. */
  public String path() {
    return path;
  }

  /**
   * The id of the current leader as ZooKeeper sees it, if any, for operators and tests. Empty if
   * there is no leader or ZooKeeper cannot be asked.
   */
  public Optional<String> currentLeaderId() {
    if (state.get() != State.STARTED) {
      return Optional.empty();
    }
    try {
      Participant p = latch.getLeader();
      return p.isLeader() ? Optional.of(p.getId()) : Optional.empty();
    } catch (Exception e) {
      return Optional.empty();
    }
  }

  /**
   * Leaves the election; the next candidate takes over at once. Idempotent. The listener hears
   * {@link Listener#onLossOfLeadership()} if this candidate led.
   */
  @Override
  public void close() {
    State previous = state.getAndSet(State.CLOSED);
    if (previous != State.STARTED) {
      return;
    }
    client.getConnectionStateListenable().removeListener(connectionListener);
    try {
      // SILENT: we report the loss ourselves below, exactly once.
      latch.close(LeaderLatch.CloseMode.SILENT);
    } catch (Exception e) {
      log.warn(
          "{} could not leave the election at {} cleanly: {}", participantId, path, e.toString());
    }
    transition(false, "closed");
    log.info("{} left the election at {}", participantId, path);
  }

  private void onConnectionState(CuratorFramework c, ConnectionState newState) {
    // Curator's LeaderLatch also revokes on these, but only after its own bookkeeping; the tick
    // loop must not run one more tick on a connection that might already have lost the session.
    if (newState == ConnectionState.SUSPENDED || newState == ConnectionState.LOST) {
      transition(false, "connection " + newState);
    }
  }

  private synchronized void transition(boolean nowLeader, String why) {
    if (nowLeader) {
      // A grant can race with a suspension or with close(); only a connected, started candidate
      // whose latch still holds leadership may lead.
      if (leader
          || state.get() != State.STARTED
          || !latch.hasLeadership()
          || !client.getZookeeperClient().isConnected()) {
        return;
      }
      leader = true;
      log.info("{} is now the leader at {} ({})", participantId, path, why);
      notify(listener::onLeadership);
    } else {
      if (!leader) {
        return;
      }
      leader = false;
      log.warn("{} lost leadership at {} ({})", participantId, path, why);
      notify(listener::onLossOfLeadership);
    }
  }

  private void notify(Runnable callback) {
    try {
      callback.run();
    } catch (RuntimeException e) {
      // Curator would swallow it on its event thread; make sure it is at least seen.
      log.error("Leadership listener of {} at {} failed", participantId, path, e);
    }
  }
}
