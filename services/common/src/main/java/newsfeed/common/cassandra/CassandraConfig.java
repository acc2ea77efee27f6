package newsfeed.common.cassandra;

import io.vertx.cassandra.CassandraClientOptions;
import newsfeed.common.Env;

import java.net.InetSocketAddress;
import java.util.List;

/** The CASSANDRA_* variables of docs/contracts.md (outbound and inbound), and the client options they make. */
public record CassandraConfig(List<InetSocketAddress> contactPoints, String localDc, String keyspace,
                              String username, String password) {

  public static CassandraConfig fromEnv(Env e) {
    return new CassandraConfig(
        e.hostPorts("CASSANDRA_CONTACT_POINTS", "localhost:9042"),
        e.string("CASSANDRA_LOCAL_DC", "datacenter1"),
        e.string("CASSANDRA_KEYSPACE", "newsfeed"),
        e.optional("CASSANDRA_USERNAME"),
        e.optional("CASSANDRA_PASSWORD"));
  }

  public CassandraClientOptions clientOptions() {
    CassandraClientOptions options = new CassandraClientOptions();
    contactPoints.forEach(p -> options.addContactPoint(p.getHostString(), p.getPort()));
    options.dataStaxClusterBuilder().withLocalDatacenter(localDc);
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
        + ", username=" + username + "]";
  }
}
