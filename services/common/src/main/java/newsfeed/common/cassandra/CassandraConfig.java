package newsfeed.common.cassandra;

import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import io.netty.channel.EventLoop;
import io.vertx.cassandra.CassandraClientOptions;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import newsfeed.common.config.Env;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

/**
 * The CASSANDRA_* variables of docs/contracts.md (outbound and inbound), and the client options they make.
 * {@code ioOnEventLoop}: the driver's connections run on the verticle's event loop (see EventLoopNettyOptions).
 */
public record CassandraConfig(List<InetSocketAddress> contactPoints, String localDc, String keyspace,
                              String username, String password, boolean ioOnEventLoop) {
  static final Duration RECONNECT_BASE = Duration.ofMillis(500);
  static final Duration RECONNECT_MAX = Duration.ofSeconds(5);

  public static CassandraConfig fromEnv(Env e) {
    return new CassandraConfig(
        e.hostPorts("CASSANDRA_CONTACT_POINTS", "localhost:9042"),
        e.string("CASSANDRA_LOCAL_DC", "datacenter1"),
        e.string("CASSANDRA_KEYSPACE", "newsfeed"),
        e.optional("CASSANDRA_USERNAME"),
        e.optional("CASSANDRA_PASSWORD"),
        e.bool("CASSANDRA_IO_ON_EVENT_LOOP", true));
  }

  /**
   * The options of a client created in a verticle: its connections on the verticle's event loop when
   * {@code ioOnEventLoop} and Vert.x runs the NIO or the epoll transport, otherwise on the driver's own I/O threads.
   */
  public CassandraClientOptions clientOptions(Vertx vertx) {
    EventLoop loop = ((ContextInternal) vertx.getOrCreateContext()).nettyEventLoop();
    if (!ioOnEventLoop || EventLoopNettyOptions.socketChannelFor(loop) == null) {
      return clientOptions();
    }
    return configure(new CassandraClientOptions(EventLoopNettyOptions.sessionBuilder(loop)));
  }

  /** The options of a client whose connections run on the driver's own I/O threads. */
  public CassandraClientOptions clientOptions() {
    return configure(new CassandraClientOptions());
  }

  private CassandraClientOptions configure(CassandraClientOptions options) {
    contactPoints.forEach(p -> options.addContactPoint(p.getHostString(), p.getPort()));
    // the driver's default reconnection backs off to 60 s: after an outage a service would stay unready up to a
    // minute after Cassandra is back; retrying every few seconds costs nothing on the scale of a few nodes
    options.dataStaxClusterBuilder().withLocalDatacenter(localDc)
        .withConfigLoader(DriverConfigLoader.programmaticBuilder()
            .withDuration(DefaultDriverOption.RECONNECTION_BASE_DELAY, RECONNECT_BASE)
            .withDuration(DefaultDriverOption.RECONNECTION_MAX_DELAY, RECONNECT_MAX)
            .build());
    options.setKeyspace(keyspace);
    if (username != null) {
      options.setUsername(username);
      options.setPassword(password);
    }
    return options;
  }

  /** Hides the password when the config is logged. */
  @Override
  public String toString() {
    return "CassandraConfig[contactPoints=" + contactPoints + ", localDc=" + localDc + ", keyspace=" + keyspace
        + ", username=" + username + ", ioOnEventLoop=" + ioOnEventLoop + "]";
  }
}
