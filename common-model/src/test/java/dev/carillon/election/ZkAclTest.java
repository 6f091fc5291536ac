package dev.carillon.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.carillon.devstack.DevStack;
import dev.carillon.devstack.DevStackExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * With {@code zk.digest-user}/{@code zk.digest-password}, Carillon's ZooKeeper nodes belong to its
 * digest identity: a client without it can neither delete the leader's latch node nor plant one,
 * and nodes left open from before are taken back when an election starts.
 */
@ExtendWith(DevStackExtension.class)
class ZkAclTest {
  private static final Duration SESSION = Duration.ofSeconds(5);
  private static final ZkDigest DIGEST = new ZkDigest("carillon", "zk-secret-0123456789");

  private final List<AutoCloseable> open = new ArrayList<>();
  private final String service = "acl-" + UUID.randomUUID().toString().substring(0, 8);
  private String connect;

  /**
   * Each test works below a chroot of its own: these tests take {@code /carillon} for the digest
   * identity, which must not lock out the other election tests of this JVM.
   */
  @BeforeEach
  void chroot(DevStack stack) throws Exception {
    String root = "/acl-test-" + UUID.randomUUID();
    try (CuratorFramework c = Zk.connect(stack.zkConnect(), SESSION)) {
      c.create().forPath(root);
    }
    connect = stack.zkConnect() + root;
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  private CuratorFramework client(Optional<ZkDigest> digest) {
    CuratorFramework c = Zk.connect(connect, SESSION, digest);
    open.add(c);
    return c;
  }

  private LeaderElection election(CuratorFramework client) {
    LeaderElection e =
        new LeaderElection(
            client,
            service,
            "candidate-1",
            Optional.of(DIGEST),
            new LeaderElection.Listener() {
              @Override
              public void onLeadership() {}

              @Override
              public void onLossOfLeadership() {}
            });
    open.add(e);
    e.start();
    await("the authenticated candidate leads at " + e.path())
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(() -> assertThat(e.isLeader()).isTrue());
    return e;
  }

  @Test
  void a_client_without_the_digest_cannot_delete_plant_or_read_the_latch_nodes() throws Exception {
    LeaderElection e = election(client(Optional.of(DIGEST)));
    CuratorFramework stranger = client(Optional.empty());
    String leaderPath = e.path();
    List<String> latches = client(Optional.of(DIGEST)).getChildren().forPath(leaderPath);
    assertThat(latches).hasSize(1);
    String latch = leaderPath + "/" + latches.get(0);

    assertThatThrownBy(() -> stranger.delete().forPath(latch))
        .isInstanceOf(KeeperException.NoAuthException.class);
    assertThatThrownBy(
            () ->
                stranger
                    .create()
                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE)
                    .forPath(leaderPath + "/_c_planted-latch-"))
        .isInstanceOf(KeeperException.NoAuthException.class);
    assertThatThrownBy(() -> stranger.getChildren().forPath(leaderPath))
        .isInstanceOf(KeeperException.NoAuthException.class);
    assertThatThrownBy(
            () -> stranger.setACL().withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE).forPath(leaderPath))
        .isInstanceOf(KeeperException.NoAuthException.class);
    assertThatThrownBy(() -> stranger.create().forPath("/carillon/" + service + "/other"))
        .isInstanceOf(KeeperException.NoAuthException.class);
    assertThatThrownBy(() -> stranger.checkExists().forPath(latch))
        .isInstanceOf(KeeperException.NoAuthException.class);
    // The parents are persistent, so ZooKeeper never removes them for someone to re-create open.
    CuratorFramework owner = client(Optional.of(DIGEST));
    assertThat(owner.checkExists().forPath(leaderPath).getEphemeralOwner()).isZero();
    assertThat(owner.checkExists().forPath("/carillon").getEphemeralOwner()).isZero();
    assertThat(owner.getChildren().forPath(leaderPath)).containsExactly(latches.get(0));
    assertThat(e.isLeader()).isTrue();
  }

  @Test
  void nodes_left_open_are_taken_back_and_a_planted_latch_removed_before_joining()
      throws Exception {
    CuratorFramework stranger = client(Optional.empty());
    String leaderPath = "/carillon/" + service + "/leader";
    stranger.create().creatingParentsIfNeeded().forPath(leaderPath);
    // A persistent latch node that would sort first and hold leadership forever.
    String planted =
        stranger
            .create()
            .withMode(CreateMode.PERSISTENT_SEQUENTIAL)
            .forPath(leaderPath + "/_c_00000000-0000-0000-0000-000000000000-latch-");

    LeaderElection e = election(client(Optional.of(DIGEST)));

    CuratorFramework owner = client(Optional.of(DIGEST));
    assertThat(owner.checkExists().forPath(planted)).isNull();
    for (String node : List.of("/carillon", "/carillon/" + service, leaderPath)) {
      assertThat(owner.getACL().forPath(node)).as("ACL of %s", node).containsExactly(DIGEST.acl());
    }
    assertThat(e.isLeader()).isTrue();
  }

  @Test
  void the_digest_is_never_printed() {
    assertThat(DIGEST.toString()).contains("carillon").doesNotContain("zk-secret");
    assertThatThrownBy(() -> new ZkDigest("a:b", "x"))
        .hasMessageContaining("zk.digest-user")
        .hasMessageContaining("'a:b'");
  }
}
