package dev.carillon.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hosts of their own for the fault suite: one Linux network namespace per service, joined to this
 * host by a veth pair, so that a link can be cut and healed while the service runs. Needs root and
 * iproute2's {@code ip}; {@link #unavailableReason()} says why not when they are missing.
 *
 * <p>Layout of one lab (run {@code R}, a random number 1-250 so that two labs do not meet): the
 * servers' address {@code 10.77.R.1/32} on this host's {@code lo} (PostgreSQL, Kafka and ZooKeeper
 * listen there, see devstack's {@code --listen-address}); namespace {@code k} is {@code cfRnk} with
 * {@code 10.78.R.(4k+2)/30} on its end of the veth ({@code cfRpk}) and {@code 10.78.R.(4k+1)} on
 * this host's end ({@code cfRhk}), its default route through it. A namespace's traffic to the
 * servers is therefore routed over its veth and nowhere else.
 *
 * <p>A cut drops packets silently in both directions, as a broken network does (no reset, no ICMP
 * error): inside the namespace, packets to the server's port are routed into a veth whose peer is
 * down ({@code cfRdk}/{@code cfRek}), and packets from that port are blackholed on input. Both are
 * policy-routing rules matching {@code ipproto tcp} and the port, so one namespace can be cut from
 * ZooKeeper and keep PostgreSQL. {@link #heal} deletes the rules; established connections that have
 * not timed out carry on. Everything is removed on {@link #close()} (deleting a namespace deletes
 * its links and rules).
 */
final class NetworkNamespaces implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NetworkNamespaces.class);
  private static final long COMMAND_TIMEOUT_SECONDS = 20;
  // Rules in a namespace: cuts at 100+, the local table moved from 0 to 1000 so that the input
  // blackhole comes before local delivery.
  private static final int CUT_PREF = 100;
  private static final int LOCAL_PREF = 1000;
  private static final int DEAD_END_TABLE = 100;

  /** One namespace: its name, its address, and the two ends of its veth. */
  record Host(String namespace, String address, String link, String hostLink) {
    /** {@code command} run inside the namespace (exec'd by {@code ip}, so the pid is its own). */
    List<String> wrap(List<String> command) {
      List<String> out = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
      out.addAll(command);
      return out;
    }
  }

  private final int run;
  private final String serverAddress;
  private final Map<String, Host> hosts = new ConcurrentHashMap<>();
  private final Map<String, List<Integer>> cuts = new ConcurrentHashMap<>();
  private int next;

  private NetworkNamespaces(int run) {
    this.run = run;
    this.serverAddress = "10.77." + run + ".1";
  }

  /**
   * Why namespaces cannot be made here, or empty when they can: not Linux, no {@code ip}, or not
   * allowed (not root, or no CAP_NET_ADMIN in a container).
   */
  static Optional<String> unavailableReason() {
    if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
      return Optional.of("network namespaces need Linux, this is " + System.getProperty("os.name"));
    }
    if (List.of("/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip").stream()
        .noneMatch(p -> Files.isExecutable(Path.of(p)))) {
      return Optional.of("iproute2's 'ip' is not installed (apt-get install -y iproute2)");
    }
    String probe = "cfprobe" + ProcessHandle.current().pid() % 100000;
    try {
      Result add = exec(List.of("ip", "netns", "add", probe));
      if (add.code() != 0) {
        return Optional.of("'ip netns add' is not allowed here (root needed): " + add.output());
      }
      exec(List.of("ip", "netns", "del", probe));
      return Optional.empty();
    } catch (UncheckedIOException e) {
      return Optional.of("cannot run ip: " + e.getMessage());
    }
  }

  /**
   * A new lab: the servers' address is added to {@code lo}. What a killed earlier run of the same
   * number left behind (its namespaces, the address) is removed first.
   */
  static NetworkNamespaces create() {
    NetworkNamespaces lab = new NetworkNamespaces(1 + new SecureRandom().nextInt(250));
    lab.removeLeftovers();
    lab.ip("addr", "add", lab.serverAddress + "/32", "dev", "lo");
    log.info("Network lab {}: servers on {} (lo)", lab.run, lab.serverAddress);
    return lab;
  }

  /** The address the servers must listen on so that every namespace reaches them. */
  String serverAddress() {
    return serverAddress;
  }

  /** The namespace of {@code name}, made on first use. */
  synchronized Host host(String name) {
    Host existing = hosts.get(name);
    if (existing != null) {
      return existing;
    }
    int k = ++next;
    if (k > 60) {
      throw new IllegalStateException("a lab holds at most 60 namespaces");
    }
    String prefix = "cf" + run;
    String ns = prefix + "n" + k;
    String hostLink = prefix + "h" + k;
    String nsLink = prefix + "p" + k;
    String deadLink = prefix + "d" + k;
    String deadPeer = prefix + "e" + k;
    String net = "10.78." + run + ".";
    String hostAddr = net + (4 * k + 1);
    String nsAddr = net + (4 * k + 2);
    ip("netns", "add", ns);
    Host h = new Host(ns, nsAddr, nsLink, hostLink);
    hosts.put(name, h);
    ip("link", "add", hostLink, "type", "veth", "peer", "name", nsLink);
    ip("link", "set", nsLink, "netns", ns);
    ip("addr", "add", hostAddr + "/30", "dev", hostLink);
    ip("link", "set", hostLink, "up");
    ipIn(ns, "link", "set", "lo", "up");
    ipIn(ns, "addr", "add", nsAddr + "/30", "dev", nsLink);
    ipIn(ns, "link", "set", nsLink, "up");
    ipIn(ns, "route", "add", "default", "via", hostAddr);
    // The dead end: a veth whose peer stays down swallows what is routed into it.
    ipIn(ns, "link", "add", deadLink, "type", "veth", "peer", "name", deadPeer);
    ipIn(ns, "link", "set", deadLink, "up");
    ipIn(ns, "route", "add", "default", "dev", deadLink, "table", Integer.toString(DEAD_END_TABLE));
    ipIn(ns, "rule", "add", "pref", Integer.toString(LOCAL_PREF), "lookup", "local");
    ipIn(ns, "rule", "del", "pref", "0");
    log.info("Network lab {}: {} in namespace {} at {}", run, name, ns, nsAddr);
    return h;
  }

  /** Cuts {@code host} from the server on {@code port} (TCP, both directions, silently). */
  void cut(Host host, int port) {
    int pref = CUT_PREF + 2 * cutSlot(host, port);
    String p = Integer.toString(port);
    // Out: what this host sends to the port goes into the dead end.
    ipIn(
        host.namespace(),
        rule(pref, "iif lo ipproto tcp dport " + p + " lookup " + DEAD_END_TABLE));
    // In: what arrives from the port over the veth is dropped before local delivery.
    ipIn(
        host.namespace(),
        rule(pref + 1, "iif " + host.link() + " ipproto tcp sport " + p + " blackhole"));
    log.info("Network lab {}: cut {} from port {}", run, host.namespace(), port);
  }

  /** Heals a {@link #cut}. */
  void heal(Host host, int port) {
    List<Integer> slots = cuts.get(host.namespace());
    int slot = slots == null ? -1 : slots.indexOf(port);
    if (slot < 0) {
      throw new IllegalStateException(host.namespace() + " is not cut from port " + port);
    }
    int pref = CUT_PREF + 2 * slot;
    ipIn(host.namespace(), "rule", "del", "pref", Integer.toString(pref));
    ipIn(host.namespace(), "rule", "del", "pref", Integer.toString(pref + 1));
    slots.set(slot, -1);
    log.info("Network lab {}: healed {} to port {}", run, host.namespace(), port);
  }

  private synchronized int cutSlot(Host host, int port) {
    List<Integer> slots = cuts.computeIfAbsent(host.namespace(), k -> new ArrayList<>());
    if (slots.contains(port)) {
      throw new IllegalStateException(host.namespace() + " is cut from port " + port + " already");
    }
    int free = slots.indexOf(-1);
    if (free >= 0) {
      slots.set(free, port);
      return free;
    }
    slots.add(port);
    return slots.size() - 1;
  }

  private void removeLeftovers() {
    String prefix = "cf" + run + "n";
    for (String line : exec(List.of("ip", "netns", "list")).output().split("\n")) {
      String ns = line.split(" ")[0].trim();
      if (ns.startsWith(prefix)) {
        log.warn("Network lab {}: removing namespace {} left by an earlier run", run, ns);
        exec(List.of("ip", "netns", "del", ns));
      }
    }
    exec(List.of("ip", "addr", "del", serverAddress + "/32", "dev", "lo"));
  }

  /** Deletes every namespace (with its links and rules) and the servers' address. */
  @Override
  public void close() {
    for (Host h : hosts.values()) {
      Result r = exec(List.of("ip", "netns", "del", h.namespace()));
      if (r.code() != 0) {
        log.warn("cannot delete namespace {}: {}", h.namespace(), r.output());
      }
    }
    hosts.clear();
    Result r = exec(List.of("ip", "addr", "del", serverAddress + "/32", "dev", "lo"));
    if (r.code() != 0) {
      log.warn("cannot remove {} from lo: {}", serverAddress, r.output());
    }
  }

  private static String[] rule(int pref, String selectorAndAction) {
    List<String> out = new ArrayList<>(List.of("rule", "add", "pref", Integer.toString(pref)));
    out.addAll(List.of(selectorAndAction.split(" ")));
    return out.toArray(String[]::new);
  }

  private void ip(String... args) {
    List<String> cmd = new ArrayList<>(List.of("ip"));
    cmd.addAll(List.of(args));
    check(cmd);
  }

  private void ipIn(String namespace, String... args) {
    List<String> cmd = new ArrayList<>(List.of("ip", "-n", namespace));
    cmd.addAll(List.of(args));
    check(cmd);
  }

  private static void check(List<String> cmd) {
    Result r = exec(cmd);
    if (r.code() != 0) {
      throw new IllegalStateException(String.join(" ", cmd) + " failed: " + r.output());
    }
  }

  private record Result(int code, String output) {}

  private static Result exec(List<String> cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      if (!p.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return new Result(-1, "timed out after " + COMMAND_TIMEOUT_SECONDS + " s");
      }
      return new Result(
          p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + cmd.get(0), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + String.join(" ", cmd), e);
    }
  }
}
