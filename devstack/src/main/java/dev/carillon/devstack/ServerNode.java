package dev.carillon.devstack;

/**
 * One server of a {@link DevStack} (PostgreSQL, Kafka or ZooKeeper) with its own lifecycle.
 *
 * <p>A node's port and data directory are fixed when it is created, so a node that is stopped and
 * started again comes back on the same address with the same data, and clients reconnect by
 * themselves. That is what the fault hooks of tests rely on: a test that stops a node must start it
 * again before it returns, since the stack is shared by the whole test JVM.
 *
 * <p>States: stopped (initially) → running ⇄ stopped → closed. Every method may be called from any
 * thread; changes of one node are serialized, and different nodes change independently.
 */
public interface ServerNode extends AutoCloseable {

  /** The server's name for messages: {@code PostgreSQL}, {@code Kafka} or {@code ZooKeeper}. */
  String name();

  /** The port clients connect to. */
  int port();

  /**
   * Starts the server and returns when it accepts connections. Does nothing when it is running.
   *
   * @throws IllegalStateException after {@link #close()}
   * @throws DevStackException when the server does not start
   */
  void start();

  /**
   * Stops the server, keeping its port and data; clients see it disappear. Does nothing when it is
   * stopped or closed.
   *
   * @throws DevStackException when the server does not stop cleanly (it counts as stopped)
   */
  void stop();

  /**
   * Stops the server (if it runs) and starts it again on the same port with the same data; returns
   * when it accepts connections again.
   *
   * @throws IllegalStateException after {@link #close()}
   */
  void restart();

  /** Whether the server is running (between {@link #start()} and {@link #stop()}). */
  boolean isRunning();

  /** Stops the server for good. Idempotent; {@link #start()} is refused afterwards. */
  @Override
  void close();
}
