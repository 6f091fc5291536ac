package dev.carillon.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A stack with {@code kafkaSasl} and {@code postgresPasswords}: Kafka authenticates with SCRAM and
 * authorizes by ACL, PostgreSQL checks every password but the superuser's.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SecuredStackTest {
  private static DevStack stack;

  @BeforeAll
  static void start() {
    stack =
        DevStack.start(DevStackOptions.defaults().withKafkaSasl(true).withPostgresPasswords(true));
  }

  @AfterAll
  static void stop() {
    stack.close();
  }

  private static Map<String, Object> client(Map<String, String> auth) {
    Map<String, Object> props = new HashMap<>(auth);
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafkaBootstrap());
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 4000);
    return props;
  }

  @Test
  void kafka_refuses_a_client_without_credentials_and_a_user_without_an_acl() throws Exception {
    stack.createTopic("secured.topic", 1);
    try (Admin anonymous = Admin.create(client(Map.of()))) {
      assertThatThrownBy(() -> anonymous.listTopics().names().get(10, TimeUnit.SECONDS))
          .as("a plaintext client on the SASL listener gets no answer")
          .isInstanceOf(Exception.class);
    }
    try (Admin wrong =
        Admin.create(client(stack.kafka().clientProperties(KafkaNode.SUPER_USER, "wrong")))) {
      assertThatThrownBy(() -> wrong.listTopics().names().get(10, TimeUnit.SECONDS))
          .hasRootCauseInstanceOf(org.apache.kafka.common.errors.SaslAuthenticationException.class);
    }

    stack.kafka().addUser("alice", "alice-secret");
    Map<String, Object> alice = client(stack.kafka().clientProperties("alice", "alice-secret"));
    alice.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5000);
    alice.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 5000);
    try (KafkaProducer<String, String> p =
        new KafkaProducer<>(alice, new StringSerializer(), new StringSerializer())) {
      assertThatThrownBy(
              () ->
                  p.send(new ProducerRecord<>("secured.topic", "k", "v")).get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(TopicAuthorizationException.class);
    }
    try (Admin admin = Admin.create(client(stack.kafka().superUserProperties()))) {
      assertThat(admin.listTopics().names().get(10, TimeUnit.SECONDS)).contains("secured.topic");
    }
  }

  @Test
  void postgres_checks_the_password_of_every_role_but_the_superuser() throws SQLException {
    try (Connection c =
            DriverManager.getConnection(stack.jdbcUrl(), DevStack.DB_USER, "not-checked");
        Statement s = c.createStatement()) {
      s.execute("CREATE ROLE bob LOGIN PASSWORD 'bob-secret'");
    }
    try (Connection c = DriverManager.getConnection(stack.jdbcUrl(), "bob", "bob-secret")) {
      assertThat(c.isValid(5)).isTrue();
    }
    assertThatThrownBy(() -> DriverManager.getConnection(stack.jdbcUrl(), "bob", "guess"))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("password authentication failed for user \"bob\"");
    assertThat(List.of(stack.postgres().checksPasswords(), stack.kafka().sasl()))
        .containsOnly(true);
  }
}
