// Small Kafka client for the local stack: broker readiness, topic creation and a produce/consume probe.
// Usage: KafkaTool ready BOOTSTRAP
//        KafkaTool create-topic BOOTSTRAP TOPIC PARTITIONS [RETENTION_MS]   (sets retention.ms also on an existing topic)
//        KafkaTool describe-topic BOOTSTRAP TOPIC   (partitions, and retention.ms when set on the topic itself)
//        KafkaTool produce BOOTSTRAP TOPIC KEY VALUE
//        KafkaTool consume BOOTSTRAP TOPIC KEY TIMEOUT_SECONDS   (prints the value of the first record with KEY)
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class KafkaTool {
  public static void main(String[] args) throws Exception {
    if (args.length < 2) usage();
    String bootstrap = args[1];
    switch (args[0]) {
      case "ready" -> ready(bootstrap);
      case "create-topic" -> {
        if (args.length != 4 && args.length != 5) usage();
        createTopic(bootstrap, args[2], Integer.parseInt(args[3]));
        if (args.length == 5) setRetention(bootstrap, args[2], Long.parseLong(args[4]));
      }
      case "describe-topic" -> { need(args, 3); describeTopic(bootstrap, args[2]); }
      case "produce" -> { need(args, 5); produce(bootstrap, args[2], args[3], args[4]); }
      case "consume" -> { need(args, 5); consume(bootstrap, args[2], args[3], Integer.parseInt(args[4])); }
      default -> usage();
    }
  }

  static void need(String[] args, int n) { if (args.length != n) usage(); }

  static void usage() {
    System.err.println("usage: KafkaTool ready|create-topic|describe-topic|produce|consume BOOTSTRAP ...");
    System.exit(2);
  }

  static Admin admin(String bootstrap) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10000);
    return Admin.create(p);
  }

  // Ready = the broker answers a metadata request and reports itself (and thus its controller) as a node.
  static void ready(String bootstrap) throws Exception {
    try (Admin admin = admin(bootstrap)) {
      int nodes = admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).size();
      if (nodes < 1) throw new IllegalStateException("no broker registered");
      System.out.println("brokers=" + nodes);
    }
  }

  static void createTopic(String bootstrap, String topic, int partitions) throws Exception {
    try (Admin admin = admin(bootstrap)) {
      try {
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        System.out.println("created " + topic);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) throw e;
      }
      TopicDescription d = describe(admin, topic);
      if (d.partitions().size() != partitions) {
        throw new IllegalStateException(topic + " has " + d.partitions().size() + " partitions, want " + partitions);
      }
      System.out.println(topic + " partitions=" + d.partitions().size());
    }
  }

  // Retention is the topic's own setting, not the broker default: prints it as the broker reports it afterwards.
  static void setRetention(String bootstrap, String topic, long retentionMs) throws Exception {
    try (Admin admin = admin(bootstrap)) {
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      AlterConfigOp set = new AlterConfigOp(new ConfigEntry("retention.ms", Long.toString(retentionMs)),
          AlterConfigOp.OpType.SET);
      admin.incrementalAlterConfigs(Map.of(resource, List.of(set))).all().get(30, TimeUnit.SECONDS);
      Config config = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
      System.out.println(topic + " retention.ms=" + config.get("retention.ms").value());
    }
  }

  static void describeTopic(String bootstrap, String topic) throws Exception {
    try (Admin admin = admin(bootstrap)) {
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      ConfigEntry retention = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS)
          .get(resource).get("retention.ms");
      boolean own = retention.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG;
      System.out.println(topic + " partitions=" + describe(admin, topic).partitions().size()
          + " retention.ms=" + (own ? retention.value() : "broker-default"));
    }
  }

  // A topic just created may not be in the broker's metadata yet (a loaded machine): ask again for up to 30 s.
  static TopicDescription describe(Admin admin, String topic) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) throw e;
        Thread.sleep(500);
      }
    }
  }

  static void produce(String bootstrap, String topic, String key, String value) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15000);
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      RecordMetadata m = producer.send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS);
      System.out.println("partition=" + m.partition() + " offset=" + m.offset());
    }
  }

  static void consume(String bootstrap, String topic, String key, int timeoutSeconds) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "stack-probe-" + UUID.randomUUID());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
      while (System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
          if (key.equals(r.key())) {
            System.out.println(r.value());
            return;
          }
        }
      }
    }
    System.err.println("no record with key " + key + " on " + topic + " within " + timeoutSeconds + "s");
    System.exit(1);
  }
}
