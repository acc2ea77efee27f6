package newsfeed.inbound;

import newsfeed.common.cassandra.CassandraConfig;
import newsfeed.common.config.Env;
import newsfeed.common.testing.StackEnv;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.cassandra.CassandraClient;
import io.vertx.cassandra.CassandraClientOptions;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The stack's Cassandra keyspace for inbound's integration tests. Registered on a test class
 * ({@code @RegisterExtension static final TestCassandra cassandra = new TestCassandra();}), it connects an
 * {@link InboundRepository} on a Vert.x of its own before the class's first test and closes both after its last.
 */
final class TestCassandra implements BeforeAllCallback, AfterAllCallback {
  private Vertx vertx;
  private CassandraClient client;
  private InboundRepository repository;

  static CassandraConfig config(String contactPoints) {
    return new CassandraConfig(Env.parseHostPorts("CASSANDRA_CONTACT_POINTS", contactPoints),
        StackEnv.get("CASSANDRA_LOCAL_DC"), StackEnv.get("CASSANDRA_KEYSPACE"), null, null, true);
  }

  static CassandraClientOptions options(String contactPoints) {
    return config(contactPoints).clientOptions();
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    vertx = Vertx.vertx();
    client = CassandraClient.create(vertx, options(StackEnv.get("CASSANDRA_CONTACT_POINTS")));
    repository = new InboundRepository(client, new SimpleMeterRegistry());
  }

  @Override
  public void afterAll(ExtensionContext context) {
    client.close().await();
    vertx.close().await();
  }

  Vertx vertx() {
    return vertx;
  }

  InboundRepository repository() {
    return repository;
  }
}
