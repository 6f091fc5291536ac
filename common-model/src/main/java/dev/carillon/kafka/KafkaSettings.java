package dev.carillon.kafka;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * How Carillon's services reach Kafka: the bootstrap servers plus any client properties the
 * deployment needs (SASL, TLS, client rack ...), applied to every producer, consumer and admin
 * client.
 *
 * <p>Carillon's own settings for each role (serializers, idempotence, offsets) are applied after
 * {@code extra} and win; {@code extra} is for what Carillon does not decide, such as {@code
 * security.protocol}, {@code sasl.*} and {@code ssl.*}.
 *
 * <p>Secrets: {@link #toString()} and {@link #describe()} mask {@code sasl.jaas.config} and every
 * key that ends in {@code password} or contains {@code secret}, so the effective configuration can
 * be logged at startup.
 *
 * @param bootstrap the {@code bootstrap.servers} list, e.g. {@code kafka-1:9092,kafka-2:9092}
 * @param extra client properties passed through unchanged; must not contain {@code
 *     bootstrap.servers}
 */
public record KafkaSettings(String bootstrap, Map<String, String> extra) {
  private static final String MASK = "*****";

  public KafkaSettings {
    if (bootstrap == null || bootstrap.isBlank()) {
      throw new IllegalArgumentException(
          "bootstrap must list at least one host:port, was '" + bootstrap + "'");
    }
    extra = extra == null ? Map.of() : Map.copyOf(extra);
    if (extra.containsKey(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG)) {
      throw new IllegalArgumentException(
          "extra must not set bootstrap.servers; use the bootstrap field");
    }
  }

  /** Settings with no extra client properties (a plaintext cluster). */
  public static KafkaSettings of(String bootstrap) {
    return new KafkaSettings(bootstrap, Map.of());
  }

  /**
   * Properties for a producer of {@code String} keys and {@code byte[]} values: idempotent, {@code
   * acks=all}. Timeouts are set by the component that owns the producer (see {@link
   * InstancePublisher}).
   */
  public Map<String, Object> producerProps() {
    Map<String, Object> p = common();
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    return p;
  }

  /**
   * Properties for a consumer in group {@code groupId} of {@code String} keys and raw {@code
   * byte[]} values, which the consumer decodes itself (see {@link InstanceMessageCodec}). Offsets
   * are committed by the application after it has handled a batch, and a new group starts from the
   * earliest offset so that nothing published before the first worker started is lost.
   */
  public Map<String, Object> consumerProps(String groupId) {
    if (groupId == null || groupId.isBlank()) {
      throw new IllegalArgumentException("groupId must not be blank, was '" + groupId + "'");
    }
    Map<String, Object> p = common();
    p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    return p;
  }

  /** Properties for an {@code Admin} client. */
  public Map<String, Object> adminProps() {
    return common();
  }

  /** The settings with secret values masked, sorted by key, for logging. */
  public String describe() {
    Map<String, String> shown = new TreeMap<>();
    extra.forEach((k, v) -> shown.put(k, isSecret(k) ? MASK : v));
    return "bootstrap=" + bootstrap + ", extra=" + shown;
  }

  @Override
  public String toString() {
    return "KafkaSettings[" + describe() + "]";
  }

  /** Whether the value of client property {@code key} must never be logged. */
  public static boolean isSecret(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    return k.equals("sasl.jaas.config")
        || k.endsWith("password")
        || k.contains("secret")
        || k.endsWith(".key")
        || k.contains("credentials");
  }

  private Map<String, Object> common() {
    Map<String, Object> p = new HashMap<>(extra);
    p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return p;
  }
}
