// Small Kafka client for the local stack: broker readiness, topic creation and a produce/consume probe.
// Usage: KafkaTool ready BOOTSTRAP
//        KafkaTool create-topic BOOTSTRAP TOPIC PARTITIONS [RETENTION_MS]   (sets retention.ms also on an existing topic)
//        KafkaTool describe-topic BOOTSTRAP TOPIC   (partitions, and retention.ms when set on the topic itself)
//        KafkaTool produce BOOTSTRAP TOPIC KEY VALUE
//        KafkaTool consume BOOTSTRAP TOPIC KEY TIMEOUT_SECONDS   (prints the value of the first record with KEY)
//        KafkaTool can ACTION BOOTSTRAP ARG...   whether the client's user may do ACTION: prints "allowed" (exit 0) or
//          "denied <exception>" (exit 3: refused by the authorizer or at login), anything else fails (exit 1).
//          ACTION: connect | produce TOPIC | read TOPIC (no group) | consume TOPIC GROUP (and commit) |
//          create-topic TOPIC | delete-topic TOPIC
//        KafkaTool state BOOTSTRAP   topics (partitions, own retention.ms), ACLs and SCRAM users, sorted: what an
//          idempotent change must leave as it was
// KAFKA_CLIENT_CONFIG names an optional properties file added to every client's settings (e.g. SASL as a user).
import java.io.FileReader;
import java.io.Reader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
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
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
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
      case "can" -> can(args);
      case "state" -> state(bootstrap);
      default -> usage();
    }
  }

  static void need(String[] args, int n) { if (args.length != n) usage(); }

  static void usage() {
    System.err.println("usage: KafkaTool ready|create-topic|describe-topic|produce|consume|state BOOTSTRAP ...\n"
        + "       KafkaTool can connect|produce|read|consume|create-topic|delete-topic BOOTSTRAP ...");
    System.exit(2);
  }

  // the settings every client starts from: the bootstrap servers and the optional KAFKA_CLIENT_CONFIG file
  static Properties client(String bootstrap) {
    Properties p = new Properties();
    String file = System.getenv("KAFKA_CLIENT_CONFIG");
    if (file != null && !file.isEmpty()) {
      try (Reader r = new FileReader(file)) {
        p.load(r);
      } catch (java.io.IOException e) {
        throw new IllegalStateException("cannot read KAFKA_CLIENT_CONFIG " + file, e);
      }
    }
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return p;
  }

  static Admin admin(String bootstrap) {
    Properties p = client(bootstrap);
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
    Properties p = client(bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15000);
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      RecordMetadata m = producer.send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS);
      System.out.println("partition=" + m.partition() + " offset=" + m.offset());
    }
  }

  static void consume(String bootstrap, String topic, String key, int timeoutSeconds) {
    Properties p = client(bootstrap);
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

  interface Action { void run() throws Exception; }

  // can ACTION BOOTSTRAP ARG...: a refusal is an AuthorizationException (an ACL missing) or an
  // AuthenticationException (a bad login), wherever the client wraps it; any other failure is not an answer
  static void can(String[] args) {
    if (args.length < 3) usage();
    String bootstrap = args[2];
    Action action = switch (args[1]) {
      case "connect" -> () -> { need(args, 3); ready(bootstrap); };
      case "produce" -> () -> { need(args, 4); produce(bootstrap, args[3], "probe", "probe"); };
      case "read" -> () -> { need(args, 4); read(bootstrap, args[3]); };
      case "consume" -> () -> { need(args, 5); consumeAndCommit(bootstrap, args[3], args[4]); };
      case "create-topic" -> () -> { need(args, 4); createTopic(bootstrap, args[3], 1); };
      case "delete-topic" -> () -> { need(args, 4); deleteTopic(bootstrap, args[3]); };
      default -> { usage(); yield null; }
    };
    java.io.PrintStream out = System.out;
    System.setOut(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));  // only the verdict
    try {
      action.run();
      out.println("allowed");
      out.flush();
      System.exit(0);
    } catch (Throwable e) {
      for (Throwable c = e; c != null; c = c.getCause()) {
        if (c instanceof AuthorizationException || c instanceof AuthenticationException) {
          out.println("denied " + c.getClass().getSimpleName());
          out.flush();
          System.exit(3);
        }
      }
      System.err.println("error: " + e);
      System.exit(1);
    }
  }

  static KafkaConsumer<String, String> consumer(Properties p) {
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15000);
    return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
  }

  // Reading = fetching one record of the topic with no group (assigned partitions): needs Read on the topic only.
  static void read(String bootstrap, String topic) {
    try (KafkaConsumer<String, String> c = consumer(client(bootstrap))) {
      List<TopicPartition> parts = new ArrayList<>();
      c.partitionsFor(topic).forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
      c.assign(parts);
      c.seekToBeginning(parts);
      firstRecord(c, topic);
    }
  }

  // Consuming = a member of GROUP that gets a record of the topic and commits its offsets.
  static void consumeAndCommit(String bootstrap, String topic, String group) {
    Properties p = client(bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    try (KafkaConsumer<String, String> c = consumer(p)) {
      c.subscribe(List.of(topic));
      firstRecord(c, topic);
      c.commitSync(Duration.ofSeconds(15));
    }
  }

  static void firstRecord(KafkaConsumer<String, String> c, String topic) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      if (!c.poll(Duration.ofMillis(500)).isEmpty()) return;
    }
    throw new IllegalStateException("no record on " + topic + " within 30s");
  }

  static void deleteTopic(String bootstrap, String topic) throws Exception {
    try (Admin admin = admin(bootstrap)) {
      admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
    }
  }

  static void state(String bootstrap) throws Exception {
    try (Admin admin = admin(bootstrap)) {
      List<String> lines = new ArrayList<>();
      for (TopicDescription d : admin.describeTopics(admin.listTopics().names().get(30, TimeUnit.SECONDS))
          .allTopicNames().get(30, TimeUnit.SECONDS).values()) {
        ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, d.name());
        ConfigEntry retention = admin.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r)
            .get("retention.ms");
        boolean own = retention.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG;
        lines.add("topic " + d.name() + " partitions=" + d.partitions().size()
            + " retention.ms=" + (own ? retention.value() : "broker-default"));
      }
      for (AclBinding b : admin.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS)) {
        lines.add("acl " + b.pattern().resourceType() + ":" + b.pattern().patternType() + ":" + b.pattern().name()
            + " " + b.entry().principal() + " " + b.entry().operation() + " " + b.entry().permissionType()
            + " host=" + b.entry().host());
      }
      for (UserScramCredentialsDescription u : admin.describeUserScramCredentials().all()
          .get(30, TimeUnit.SECONDS).values()) {
        u.credentialInfos().forEach(i -> lines.add("scram-user " + u.name() + " " + i.mechanism()
            + " iterations=" + i.iterations()));
      }
      Collections.sort(lines);
      lines.forEach(System.out::println);
    }
  }
}
