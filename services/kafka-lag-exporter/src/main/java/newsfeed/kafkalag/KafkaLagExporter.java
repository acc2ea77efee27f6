// Consumer-group lag as the broker sees it, for Prometheus: each group's committed offsets against the partitions'
// end offsets, read through the admin API at every scrape. The series have kafka_exporter's names and labels, so a
// dashboard or alert written for that exporter reads these unchanged:
//   kafka_brokers                                                     brokers in the cluster
//   kafka_topic_partitions{topic}                                     partitions of the topic
//   kafka_topic_partition_current_offset{topic,partition}             the end offset (the next record's offset)
//   kafka_topic_partition_oldest_offset{topic,partition}              the log start offset (retention moves it)
//   kafka_consumergroup_current_offset{consumergroup,topic,partition} the group's committed offset
//   kafka_consumergroup_current_offset_sum{consumergroup,topic}
//   kafka_consumergroup_lag{consumergroup,topic,partition}            end offset minus committed offset
//   kafka_consumergroup_lag_sum{consumergroup,topic}
//   kafka_consumergroup_members{consumergroup}                        members of the group now (0: nobody consumes)
// Unlike a consumer's own lag gauge it goes on while every member of a group is stopped or stuck. A partition the
// group has never committed has no consumergroup series; internal topics (__consumer_offsets...) are left out.
// A scrape the broker does not answer within 10 s fails with 503 (Prometheus's `up` is then 0).
// One source file on kafka-clients alone: the local stack compiles it against its Kafka's jars, the chart runs the
// jar of this module (docs/observability.md).
package newsfeed.kafkalag;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.FileReader;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Reader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The exporter's process. Configuration, all from the environment:
 *
 * <pre>
 *   KAFKA_BOOTSTRAP_SERVERS  host:port,... (required)
 *   HTTP_HOST, HTTP_PORT     where /metrics, /health/live and /health/ready are served (0.0.0.0, 8080)
 *   KAFKA_SECURITY_PROTOCOL  PLAINTEXT (default), SASL_PLAINTEXT or SASL_SSL; with SASL also
 *   KAFKA_SASL_MECHANISM     SCRAM-SHA-512 (default), SCRAM-SHA-256 or PLAIN,
 *   KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD   a user allowed Describe on every topic and group (no more)
 *   KAFKA_CLIENT_CONFIG      optional: a file of client properties, read first (the variables above win)
 * </pre>
 *
 * A bad configuration ends it with exit code 2 and one line naming the variable.
 */
public class KafkaLagExporter {
  static final long TIMEOUT_S = 10;
  static final long READY_TIMEOUT_S = 2;
  static final String METRICS = "text/plain; version=0.0.4; charset=utf-8";
  static final String TEXT = "text/plain; charset=utf-8";
  static final String JSON = "application/json";

  public static void main(String[] args) throws Exception {
    Properties client;
    InetSocketAddress listen;
    try {
      client = client(System.getenv());
      listen = new InetSocketAddress(env("HTTP_HOST", "0.0.0.0"), port(env("HTTP_PORT", "8080")));
    } catch (IllegalArgumentException | IOException e) {
      System.err.println("kafka-lag-exporter: bad configuration: " + e.getMessage());
      System.exit(2);
      return;
    }
    Admin admin = Admin.create(client);
    HttpServer server = HttpServer.create(listen, 16);
    // a readiness probe is not queued behind a slow scrape; scrapes themselves run one at a time (render)
    server.setExecutor(Executors.newFixedThreadPool(2));
    server.createContext("/metrics", exchange -> {
      try {
        answer(exchange, 200, METRICS, render(admin));
      } catch (Exception e) {
        System.err.println("scrape failed: " + e);
        answer(exchange, 503, TEXT, "kafka did not answer: " + e + "\n");
      }
    });
    server.createContext("/health/live", exchange -> answer(exchange, 200, JSON, "{\"status\":\"UP\"}"));
    // ready while the broker answers: a scrape would fail otherwise
    server.createContext("/health/ready", exchange -> {
      try {
        admin.describeCluster().clusterId().get(READY_TIMEOUT_S, TimeUnit.SECONDS);
        answer(exchange, 200, JSON, "{\"status\":\"UP\"}");
      } catch (Exception e) {
        answer(exchange, 503, JSON, "{\"status\":\"DOWN\",\"kafka\":\"no answer within " + READY_TIMEOUT_S + " s\"}");
      }
    });
    server.createContext("/", exchange -> answer(exchange, 404, TEXT, "see /metrics\n"));
    // bounded: with the broker gone (a crash) an open admin request would otherwise hold the exit for its timeout
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.stop(0);
      admin.close(Duration.ofSeconds(2));
    }));
    server.start();
    System.err.println("serving consumer-group lag of " + client.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG)
        + " on " + listen.getHostString() + ":" + listen.getPort());
  }

  static int port(String value) {
    try {
      int port = Integer.parseInt(value);
      if (port >= 1 && port <= 65535) {
        return port;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("HTTP_PORT must be a port number (1-65535), got '" + value + "'");
  }

  static String env(String name, String fallback) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? fallback : v.trim();
  }

  /** The admin client's properties from the environment (see the class comment). */
  static Properties client(Map<String, String> env) throws IOException {
    Properties p = new Properties();
    String config = env.get("KAFKA_CLIENT_CONFIG");
    if (config != null && !config.isBlank()) {
      try (Reader r = new FileReader(config, StandardCharsets.UTF_8)) {
        p.load(r);
      }
    }
    String bootstrap = env.get("KAFKA_BOOTSTRAP_SERVERS");
    if (bootstrap == null || bootstrap.isBlank()) {
      throw new IllegalArgumentException("KAFKA_BOOTSTRAP_SERVERS is required (host:port,...)");
    }
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap.trim());
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TimeUnit.SECONDS.toMillis(TIMEOUT_S));
    String protocol = env.getOrDefault("KAFKA_SECURITY_PROTOCOL", "").trim().toUpperCase(Locale.ROOT);
    if (protocol.isEmpty() || protocol.equals("PLAINTEXT")) {
      return p;
    }
    if (!protocol.equals("SASL_PLAINTEXT") && !protocol.equals("SASL_SSL")) {
      throw new IllegalArgumentException(
          "KAFKA_SECURITY_PROTOCOL must be PLAINTEXT, SASL_PLAINTEXT or SASL_SSL, got '" + protocol + "'");
    }
    String mechanism = env.getOrDefault("KAFKA_SASL_MECHANISM", "SCRAM-SHA-512").trim().toUpperCase(Locale.ROOT);
    String module = switch (mechanism) {
      case "SCRAM-SHA-512", "SCRAM-SHA-256" -> "org.apache.kafka.common.security.scram.ScramLoginModule";
      case "PLAIN" -> "org.apache.kafka.common.security.plain.PlainLoginModule";
      default -> throw new IllegalArgumentException(
          "KAFKA_SASL_MECHANISM must be SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN, got '" + mechanism + "'");
    };
    String user = env.get("KAFKA_SASL_USERNAME"), password = env.get("KAFKA_SASL_PASSWORD");
    if (user == null || user.isEmpty() || password == null || password.isEmpty()) {
      throw new IllegalArgumentException(
          "KAFKA_SECURITY_PROTOCOL=" + protocol + " needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD");
    }
    p.put("security.protocol", protocol);
    p.put("sasl.mechanism", mechanism);
    p.put("sasl.jaas.config", module + " required username=\"" + jaas(user) + "\" password=\"" + jaas(password)
        + "\";");
    return p;
  }

  // a JAAS option value is a quoted string: its quotes and backslashes escaped
  static String jaas(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  static void answer(HttpExchange exchange, int status, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  static <T> T get(org.apache.kafka.common.KafkaFuture<T> f) throws Exception {
    return f.get(TIMEOUT_S, TimeUnit.SECONDS);
  }

  static synchronized String render(Admin admin) throws Exception {
    int brokers = get(admin.describeCluster().nodes()).size();
    Set<String> names = get(admin.listTopics().names());   // internal topics are not listed by default
    Map<String, TopicDescription> topics = new TreeMap<>(get(admin.describeTopics(names).allTopicNames()));
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>(), earliest = new HashMap<>();
    topics.values().forEach(t -> t.partitions().forEach(p -> {
      latest.put(new TopicPartition(t.name(), p.partition()), OffsetSpec.latest());
      earliest.put(new TopicPartition(t.name(), p.partition()), OffsetSpec.earliest());
    }));
    Map<TopicPartition, ListOffsetsResultInfo> ends = get(admin.listOffsets(latest).all());
    Map<TopicPartition, ListOffsetsResultInfo> starts = get(admin.listOffsets(earliest).all());
    List<String> groups = get(admin.listGroups(ListGroupsOptions.forConsumerGroups()).all()).stream()
        .map(GroupListing::groupId).sorted().toList();
    Map<String, ConsumerGroupDescription> described = get(admin.describeConsumerGroups(groups).all());
    Map<String, Map<TopicPartition, OffsetAndMetadata>> committed = new TreeMap<>();
    for (String g : groups) {
      committed.put(g, get(admin.listConsumerGroupOffsets(g).partitionsToOffsetAndMetadata()));
    }

    Metrics m = new Metrics();
    m.gauge("kafka_brokers", "Brokers of the cluster.").add("", brokers);
    Metrics.Family partitions = m.gauge("kafka_topic_partitions", "Partitions of the topic.");
    Metrics.Family end = m.gauge("kafka_topic_partition_current_offset",
        "End offset of the partition: the offset its next record gets.");
    Metrics.Family start = m.gauge("kafka_topic_partition_oldest_offset",
        "Log start offset of the partition: its oldest record retention kept.");
    for (TopicDescription t : topics.values()) {
      partitions.add(labels("topic", t.name()), t.partitions().size());
      for (var p : t.partitions()) {
        TopicPartition tp = new TopicPartition(t.name(), p.partition());
        String l = labels("topic", t.name(), "partition", Integer.toString(p.partition()));
        end.add(l, ends.get(tp).offset());
        start.add(l, starts.get(tp).offset());
      }
    }
    Metrics.Family offset = m.gauge("kafka_consumergroup_current_offset",
        "Offset the group committed on the partition.");
    Metrics.Family offsetSum = m.gauge("kafka_consumergroup_current_offset_sum",
        "Offsets the group committed on the topic, summed over its partitions.");
    Metrics.Family lag = m.gauge("kafka_consumergroup_lag",
        "Records of the partition after the group's committed offset.");
    Metrics.Family lagSum = m.gauge("kafka_consumergroup_lag_sum",
        "Records of the topic after the group's committed offsets, summed over its partitions.");
    Metrics.Family members = m.gauge("kafka_consumergroup_members",
        "Members of the group now; 0 while nobody consumes.");
    for (String g : groups) {
      members.add(labels("consumergroup", g), described.get(g).members().size());
      Map<TopicPartition, OffsetAndMetadata> done = committed.get(g);
      for (TopicDescription t : topics.values()) {
        long offsets = 0, lags = 0;
        boolean any = false;
        for (var p : t.partitions()) {
          TopicPartition tp = new TopicPartition(t.name(), p.partition());
          OffsetAndMetadata at = done.get(tp);
          if (at == null) {
            continue;
          }
          long behind = Math.max(0, ends.get(tp).offset() - at.offset());
          String l = labels("consumergroup", g, "topic", t.name(), "partition", Integer.toString(p.partition()));
          offset.add(l, at.offset());
          lag.add(l, behind);
          offsets += at.offset();
          lags += behind;
          any = true;
        }
        if (any) {
          offsetSum.add(labels("consumergroup", g, "topic", t.name()), offsets);
          lagSum.add(labels("consumergroup", g, "topic", t.name()), lags);
        }
      }
    }
    return m.text();
  }

  static String labels(String... pairs) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < pairs.length; i += 2) {
      out.add(pairs[i] + "=\"" + pairs[i + 1].replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"");
    }
    return "{" + String.join(",", out) + "}";
  }

  // the text exposition format: per family its HELP and TYPE, then its samples
  static final class Metrics {
    final List<Family> families = new ArrayList<>();

    Family gauge(String name, String help) {
      Family f = new Family(name, help);
      families.add(f);
      return f;
    }

    String text() {
      StringBuilder out = new StringBuilder();
      families.forEach(f -> {
        out.append("# HELP ").append(f.name).append(' ').append(f.help).append('\n');
        out.append("# TYPE ").append(f.name).append(" gauge\n");
        f.samples.forEach(s -> out.append(f.name).append(s).append('\n'));
      });
      return out.toString();
    }

    static final class Family {
      final String name, help;
      final List<String> samples = new ArrayList<>();

      Family(String name, String help) {
        this.name = name;
        this.help = help;
      }

      Family add(String labels, long value) {
        samples.add(labels + " " + value);
        return this;
      }
    }
  }
}
