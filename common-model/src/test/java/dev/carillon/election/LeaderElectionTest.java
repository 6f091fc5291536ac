package dev.carillon.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.carillon.devstack.DevStack;
import dev.carillon.devstack.DevStackExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(DevStackExtension.class)
class LeaderElectionTest {
  private static final Duration SESSION = Duration.ofSeconds(3);
  private static final Duration DEADLINE = Duration.ofSeconds(20);

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final String service = "svc-" + UUID.randomUUID().toString().substring(0, 8);

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  @Test
  void exactly_one_of_two_candidates_leads(DevStack stack) {
    Candidate a = candidate(stack, "a");
    Candidate b = candidate(stack, "b");

    await("a or b to lead")
        .atMost(DEADLINE)
        .untilAsserted(
            () ->
                assertThat(List.of(a.election.isLeader(), b.election.isLeader()))
                    .as("a and b leading")
                    .contains(true));

    Candidate leader = a.election.isLeader() ? a : b;
    Candidate follower = leader == a ? b : a;
    assertThat(follower.election.isLeader()).isFalse();
    assertThat(leader.events).containsExactly("lead");
    assertThat(follower.events).isEmpty();
    assertThat(follower.election.currentLeaderId()).contains(leader.election.participantId());
    assertThat(leader.election.path()).isEqualTo("/carillon/" + service + "/leader");
  }

  @Test
  void when_the_leaders_session_expires_the_other_candidate_takes_over(DevStack stack)
      throws Exception {
    Candidate a = candidate(stack, "a");
    Candidate b = candidate(stack, "b");
    await("a or b to lead")
        .atMost(DEADLINE)
        .untilAsserted(
            () ->
                assertThat(List.of(a.election.isLeader(), b.election.isLeader()))
                    .as("a and b leading")
                    .contains(true));
    Candidate oldLeader = a.election.isLeader() ? a : b;
    Candidate other = oldLeader == a ? b : a;

    expireSession(stack, oldLeader.client);

    await("the other candidate to take over").atMost(DEADLINE).until(other.election::isLeader);
    await("the old leader to see its loss")
        .atMost(DEADLINE)
        .untilAsserted(() -> assertThat(oldLeader.events).contains("loss"));
    // The old leader rejoins the election on its new session, as a follower.
    await("the old leader to follow the new one")
        .atMost(DEADLINE)
        .untilAsserted(
            () ->
                assertThat(oldLeader.election.currentLeaderId())
                    .contains(other.election.participantId()));
    assertThat(oldLeader.election.isLeader()).isFalse();
    await("the old leader to queue again").atMost(DEADLINE).until(oldLeader.election::joined);
    assertThat(oldLeader.events).containsExactly("lead", "loss");
    assertThat(other.events).containsExactly("lead");
  }

  @Test
  void a_candidate_has_joined_from_its_start_until_it_closes(DevStack stack) {
    CuratorFramework client = Zk.connect(stack.zkConnect(), SESSION);
    toClose.add(client::close);
    LeaderElection election =
        new LeaderElection(
            client,
            service,
            "solo",
            new LeaderElection.Listener() {
              @Override
              public void onLeadership() {}

              @Override
              public void onLossOfLeadership() {}
            });
    assertThat(election.joined()).as("joined before start").isFalse();
    election.start();
    await("the candidate to queue in the election").atMost(DEADLINE).until(election::joined);
    election.close();
    assertThat(election.joined()).as("joined after close").isFalse();
  }

  @Test
  void zookeeper_confirms_the_leader_only_while_its_node_comes_first(DevStack stack)
      throws Exception {
    Candidate a = candidate(stack, "a");
    Candidate b = candidate(stack, "b");
    await("one of two leads")
        .atMost(DEADLINE)
        .until(() -> a.election.isLeader() || b.election.isLeader());
    Candidate leader = a.election.isLeader() ? a : b;
    Candidate follower = leader == a ? b : a;

    assertThat(leader.election.confirm()).isTrue();
    assertThat(follower.election.confirm()).isFalse();

    expireSession(stack, leader.client);

    await("the follower takes over").atMost(DEADLINE).until(follower.election::confirm);
    assertThat(leader.election.confirm()).as("its node went with its session").isFalse();
    follower.election.close();
    assertThat(follower.election.confirm()).as("closed").isFalse();
  }

  @Test
  void closing_the_leader_hands_over_and_reports_the_loss(DevStack stack) {
    Candidate a = candidate(stack, "a");
    await("a to lead").atMost(DEADLINE).until(a.election::isLeader);
    Candidate b = candidate(stack, "b");

    a.election.close();

    assertThat(a.events).containsExactly("lead", "loss");
    assertThat(a.election.isLeader()).isFalse();
    await("b to lead after a closed").atMost(DEADLINE).until(b.election::isLeader);
  }

  @Test
  void losing_zookeeper_stops_the_leader_at_once_and_leadership_returns(DevStack stack) {
    Candidate a = candidate(stack, "a");
    await("a to lead").atMost(DEADLINE).until(a.election::isLeader);

    stack.stopZooKeeper();
    try {
      // SUSPENDED is enough: the session may still be alive, but the leader cannot know that.
      await("a to see the loss")
          .atMost(DEADLINE)
          .untilAsserted(() -> assertThat(a.events).contains("loss"));
      assertThat(a.election.isLeader()).isFalse();
    } finally {
      stack.restartZooKeeper();
    }

    await("a to lead").atMost(DEADLINE).until(a.election::isLeader);
    assertThat(a.events).containsExactly("lead", "loss", "lead");
  }

  @Test
  void lifecycle_steps_happen_once(DevStack stack) {
    Candidate a = candidate(stack, "a");
    await("a to lead").atMost(DEADLINE).until(a.election::isLeader);

    assertThatThrownBy(a.election::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("STARTED");
    a.election.close();
    a.election.close(); // idempotent
    assertThatThrownBy(a.election::start).hasMessageContaining("CLOSED");
  }

  @Test
  void the_zookeeper_client_connects_without_sasl_so_a_reconnect_does_no_reverse_dns(DevStack stack)
      throws Exception {
    CuratorFramework client = Zk.connect(stack.zkConnect(), SESSION);
    toClose.add(client::close);
    await("connected").atMost(DEADLINE).until(() -> client.getZookeeperClient().isConnected());
    // The live handle's settings, the ones its reconnecting thread reads.
    assertThat(client.getZookeeperClient().getZooKeeper().getClientConfig().isSaslClientEnabled())
        .as("SASL on the client (a host-name lookup per connection attempt)")
        .isFalse();
  }

  @Test
  void service_names_are_checked() {
    assertThatThrownBy(() -> new LeaderElection(null, "trigger", "p", null))
        .isInstanceOf(NullPointerException.class);
    CuratorFramework notStarted =
        org.apache.curator.framework.CuratorFrameworkFactory.newClient(
            "127.0.0.1:1", new org.apache.curator.retry.RetryOneTime(1));
    assertThatThrownBy(() -> new LeaderElection(notStarted, "Trigger/Service", "p", recorder()))
        .hasMessageContaining("Trigger/Service");
    assertThatThrownBy(() -> new LeaderElection(notStarted, "trigger", " ", recorder()))
        .hasMessageContaining("participantId");
  }

  // ------------------------------------------------------------------ helpers

  private record Candidate(CuratorFramework client, LeaderElection election, List<String> events) {}

  private Candidate candidate(DevStack stack, String name) {
    CuratorFramework client = Zk.connect(stack.zkConnect(), SESSION);
    toClose.add(client::close);
    List<String> events = new CopyOnWriteArrayList<>();
    LeaderElection election =
        new LeaderElection(
            client,
            service,
            name,
            new LeaderElection.Listener() {
              @Override
              public void onLeadership() {
                events.add("lead");
              }

              @Override
              public void onLossOfLeadership() {
                events.add("loss");
              }
            });
    toClose.add(election);
    election.start();
    return new Candidate(client, election, events);
  }

  private static LeaderElection.Listener recorder() {
    return new LeaderElection.Listener() {
      @Override
      public void onLeadership() {}

      @Override
      public void onLossOfLeadership() {}
    };
  }

  /**
   * Expires the client's session on the server, the way a long GC pause or a partition does: a
   * second handle attaches to the same session and closes it, so ZooKeeper deletes the session's
   * ephemeral nodes at once and the original client learns of the expiry when it reconnects.
   * (ZooKeeper's {@code injectSessionExpiration()} only fakes the expiry on the client; the server
   * would keep the leader's node until the session timed out.)
   */
  private static void expireSession(DevStack stack, CuratorFramework client) throws Exception {
    ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
    ZooKeeper twin =
        new ZooKeeper(
            stack.zkConnect(),
            (int) SESSION.toMillis(),
            event -> {},
            zk.getSessionId(),
            zk.getSessionPasswd());
    try {
      await("the twin session to connect")
          .atMost(DEADLINE)
          .untilAsserted(
              () ->
                  assertThat(twin.getState().isConnected())
                      .as("state %s", twin.getState())
                      .isTrue());
    } finally {
      twin.close();
    }
  }
}
