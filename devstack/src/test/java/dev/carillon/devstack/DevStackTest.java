package dev.carillon.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(DevStackExtension.class)
class DevStackTest {

  @Test
  void shared_stack_starts_once_per_jvm(DevStack stack) {
    assertThat(DevStack.shared()).isSameAs(stack);
    assertThat(stack.kafkaBootstrap()).matches("localhost:\\d+");
    assertThat(stack.zkConnect()).matches("127\\.0\\.0\\.1:\\d+");
    assertThat(stack.jdbcUrl()).startsWith("jdbc:postgresql://localhost:");
    assertThat(stack.startupTime()).isPositive();
  }

  @Test
  void created_database_answers_select_1(DevStack stack) throws Exception {
    String url = stack.createDatabase("devstack_select");
    String other = stack.createDatabase("devstack_select");

    assertThat(url).isNotEqualTo(other).contains("/devstack_select_");
    try (Connection c = DriverManager.getConnection(url, stack.dbUser(), stack.dbPassword());
        Statement s = c.createStatement()) {
      assertThat(single(s, "select 1")).isEqualTo("1");
      assertThat(single(s, "select current_database()")).isEqualTo(url.replaceAll(".*/", ""));
    }
  }

  @Test
  void jdbc_sessions_use_the_jvm_zone_until_they_opt_into_the_odd_zone(DevStack stack)
      throws Exception {
    String url = stack.createDatabase("devstack_zone");
    try (Connection c = DriverManager.getConnection(url, stack.dbUser(), stack.dbPassword());
        Statement s = c.createStatement()) {
      assertThat(
              single(
                  s,
                  "select setting from pg_settings where name = 'TimeZone' and source = 'client'"))
          .as("pgjdbc sends the JVM zone")
          .isEqualTo(java.util.TimeZone.getDefault().getID());

      s.execute(DevStack.SESSION_TIME_ZONE_SQL);

      assertThat(single(s, "show timezone")).isEqualTo(DevStack.POSTGRES_TIME_ZONE);
      // Midnight UTC on 1 January is already 13:45 in Chatham (daylight time).
      assertThat(single(s, "select extract(hour from timestamptz '2026-01-01 00:00:00+00')"))
          .isEqualTo("13");
    }
  }

  @Test
  void database_prefix_must_be_a_plain_identifier(DevStack stack) {
    assertThatThrownBy(() -> stack.createDatabase("Bad-Name; drop"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Bad-Name; drop");
  }

  @Test
  void kafka_round_trips_a_record(DevStack stack) throws Exception {
    String topic = "devstack-roundtrip-" + UUID.randomUUID();
    try (KafkaProducer<String, String> producer = producer(stack, Duration.ofSeconds(30));
        KafkaConsumer<String, String> consumer = consumer(stack)) {
      RecordMetadata sent = producer.send(new ProducerRecord<>(topic, "k", "hello")).get();
      consumer.subscribe(List.of(topic));

      List<String> seen = new ArrayList<>();
      await("the consumer to read the record sent")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                consumer
                    .poll(Duration.ofMillis(200))
                    .forEach(r -> seen.add(r.key() + "=" + r.value()));
                assertThat(seen).isNotEmpty();
              });
      assertThat(seen).containsExactly("k=hello");
      assertThat(sent.topic()).isEqualTo(topic);
    }
  }

  @Test
  void kafka_clients_reconnect_after_a_stop_and_start(DevStack stack) throws Exception {
    String topic = "devstack-restart-" + UUID.randomUUID();
    try (KafkaProducer<String, String> producer = producer(stack, Duration.ofSeconds(3));
        KafkaConsumer<String, String> consumer = consumer(stack)) {
      producer.send(new ProducerRecord<>(topic, "k", "before")).get();
      consumer.subscribe(List.of(topic));
      List<String> seen = new CopyOnWriteArrayList<>();
      pollUntilSeen(consumer, seen, "before");

      stack.stopKafka();
      try {
        assertThat(stack.isKafkaRunning()).isFalse();
        var whileDown = producer.send(new ProducerRecord<>(topic, "k", "while-down"));
        // delivery.timeout.ms bounds how long the record waits for the missing broker.
        await("the send during the outage to fail")
            .atMost(Duration.ofSeconds(15))
            .until(whileDown::isDone);
        assertThatThrownBy(whileDown::get)
            .hasCauseInstanceOf(org.apache.kafka.common.errors.TimeoutException.class);
      } finally {
        stack.startKafka();
      }

      assertThat(stack.isKafkaRunning()).isTrue();
      await("a send to succeed after Kafka restarted")
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .until(() -> producer.send(new ProducerRecord<>(topic, "k", "after")).get() != null);
      pollUntilSeen(consumer, seen, "after");
      assertThat(seen).doesNotContain("while-down");
    }
  }

  @Test
  void postgres_keeps_its_data_and_port_across_a_restart(DevStack stack) throws Exception {
    String url = stack.createDatabase("devstack_restart");
    try (Connection c = DriverManager.getConnection(url, stack.dbUser(), stack.dbPassword());
        Statement s = c.createStatement()) {
      s.execute("create table t (v text)");
      s.execute("insert into t values ('kept')");
    }

    stack.restartPostgres();

    try (Connection c = DriverManager.getConnection(url, stack.dbUser(), stack.dbPassword());
        Statement s = c.createStatement()) {
      assertThat(single(s, "select v from t")).isEqualTo("kept");
    }
  }

  @Test
  void zookeeper_accepts_a_session_and_keeps_data_across_a_restart(DevStack stack)
      throws Exception {
    List<KeeperState> states = new CopyOnWriteArrayList<>();
    ZooKeeper zk = new ZooKeeper(stack.zkConnect(), 10_000, e -> states.add(e.getState()));
    try {
      await("the ZooKeeper client to connect")
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> assertThat(zk.getState().isConnected()).as("state %s", zk.getState()).isTrue());
      String path = "/devstack-" + UUID.randomUUID();
      zk.create(
          path,
          "v".getBytes(StandardCharsets.UTF_8),
          ZooDefs.Ids.OPEN_ACL_UNSAFE,
          CreateMode.PERSISTENT);

      stack.stopZooKeeper();
      try {
        await("the client to see ZooKeeper stop")
            .atMost(Duration.ofSeconds(10))
            .untilAsserted(() -> assertThat(states).contains(KeeperState.Disconnected));
      } finally {
        stack.restartZooKeeper();
      }

      await("the same session to reconnect")
          .atMost(Duration.ofSeconds(15))
          .untilAsserted(
              () -> assertThat(zk.getState().isConnected()).as("state %s", zk.getState()).isTrue());
      assertThat(new String(zk.getData(path, false, null), StandardCharsets.UTF_8)).isEqualTo("v");
      // The session survived: no Expired event, just a disconnect and a reconnect.
      assertThat(states).doesNotContain(KeeperState.Expired).endsWith(KeeperState.SyncConnected);
    } finally {
      zk.close();
    }
  }

  @Test
  void each_node_is_the_server_behind_the_stack_s_addresses(DevStack stack) {
    assertThat(stack.postgres().port()).isEqualTo(stack.postgresPort());
    assertThat(stack.postgres().jdbcUrl("postgres")).isEqualTo(stack.jdbcUrl());
    assertThat(stack.kafka().bootstrap()).isEqualTo(stack.kafkaBootstrap());
    assertThat(stack.zooKeeper().connectString()).isEqualTo(stack.zkConnect());
    assertThat(List.of(stack.postgres(), stack.kafka(), stack.zooKeeper()))
        .extracting(ServerNode::name)
        .containsExactly("PostgreSQL", "Kafka", "ZooKeeper");
  }

  @Test
  void a_stopped_node_says_so_while_the_other_servers_keep_serving(DevStack stack)
      throws Exception {
    ZooKeeperNode zk = stack.zooKeeper();
    zk.stop();
    try {
      assertThat(zk.isRunning()).isFalse();
      zk.stop(); // a second stop does nothing

      String url = stack.createDatabase("devstack_zk_down");
      try (Connection c = DriverManager.getConnection(url, stack.dbUser(), stack.dbPassword());
          Statement s = c.createStatement()) {
        assertThat(single(s, "select 1")).isEqualTo("1");
      }
      stack.createTopic("devstack-zk-down-" + UUID.randomUUID(), 1);
    } finally {
      zk.start();
    }
    assertThat(zk.isRunning()).isTrue();
    ZooKeeper client = new ZooKeeper(stack.zkConnect(), 10_000, e -> {});
    try {
      await("a ZooKeeper session after the node started again")
          .atMost(Duration.ofSeconds(15))
          .until(() -> client.getState().isConnected());
    } finally {
      client.close();
    }
  }

  @Test
  void a_restarted_kafka_node_keeps_its_records(DevStack stack) throws Exception {
    String topic = "devstack-node-restart-" + UUID.randomUUID();
    stack.createTopic(topic, 1);
    try (KafkaProducer<String, String> producer = producer(stack, Duration.ofSeconds(30))) {
      producer.send(new ProducerRecord<>(topic, "k", "kept")).get();
    }

    stack.kafka().restart();

    assertThat(stack.kafka().isRunning()).isTrue();
    try (KafkaConsumer<String, String> consumer = consumer(stack)) {
      consumer.subscribe(List.of(topic));
      List<String> seen = new CopyOnWriteArrayList<>();
      pollUntilSeen(consumer, seen, "kept");
      assertThat(seen).containsExactly("kept");
    }
  }

  private static void pollUntilSeen(
      KafkaConsumer<String, String> consumer, List<String> seen, String value) {
    await("record '" + value + "' polled from the topic")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                seen.add(r.value());
              }
              assertThat(seen).contains(value);
            });
  }

  private static String single(Statement s, String sql) throws Exception {
    try (ResultSet rs = s.executeQuery(sql)) {
      assertThat(rs.next()).as("a row from %s", sql).isTrue();
      return rs.getString(1);
    }
  }

  private static KafkaProducer<String, String> producer(DevStack stack, Duration deliveryTimeout) {
    int ms = (int) deliveryTimeout.toMillis();
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafkaBootstrap(),
            ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, ms,
            ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, ms,
            ProducerConfig.LINGER_MS_CONFIG, 0,
            ProducerConfig.MAX_BLOCK_MS_CONFIG, ms),
        new StringSerializer(),
        new StringSerializer());
  }

  private static KafkaConsumer<String, String> consumer(DevStack stack) {
    return new KafkaConsumer<>(
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            stack.kafkaBootstrap(),
            ConsumerConfig.GROUP_ID_CONFIG,
            "devstack-test-" + UUID.randomUUID(),
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            "earliest"),
        new StringDeserializer(),
        new StringDeserializer());
  }
}
