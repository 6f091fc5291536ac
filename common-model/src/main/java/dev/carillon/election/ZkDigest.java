package dev.carillon.election;

import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/**
 * The ZooKeeper digest identity a service authenticates with ({@code zk.digest-user}, {@code
 * zk.digest-password}). Every node Carillon creates is then readable and writable only by this
 * identity, so a client without it can neither delete a leader's latch node nor plant one of its
 * own. {@link #toString()} never shows the password.
 *
 * @param user the digest user; no colon
 * @param password the digest password; never logged
 */
public record ZkDigest(String user, String password) {
  public ZkDigest {
    if (user == null || user.isBlank() || user.contains(":")) {
      throw new IllegalArgumentException(
          "zk.digest-user must be a non-empty name without ':', was '" + user + "'");
    }
    if (password == null || password.isEmpty()) {
      throw new IllegalArgumentException("zk.digest-password must not be empty");
    }
  }

  /** The {@code user:password} bytes Curator sends with the {@code digest} scheme. */
  byte[] authBytes() {
    return (user + ":" + password).getBytes(StandardCharsets.UTF_8);
  }

  /** The ACL entry that gives this identity every permission on a node. */
  public ACL acl() {
    try {
      return new ACL(
          org.apache.zookeeper.ZooDefs.Perms.ALL,
          new Id("digest", DigestAuthenticationProvider.generateDigest(user + ":" + password)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is missing from this JVM", e);
    }
  }

  @Override
  public String toString() {
    return "ZkDigest[user=" + user + ", password=****]";
  }
}
