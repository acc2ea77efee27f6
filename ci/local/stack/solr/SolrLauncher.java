// Runs a standalone Solr node in this JVM via the test framework's JettySolrRunner (no Solr distribution
// tarball on Maven Central). Cores under SOLR_HOME are found by core discovery (core.properties).
// Usage: SolrLauncher SOLR_HOME PORT [HOST]     (context /solr; stops cleanly on SIGTERM)
// JettySolrRunner binds 127.0.0.1 only; with a HOST other than that, a second connector serves the same Solr on
// HOST:PORT (ci/local/stack.sh's NEWSFEED_STACK_HOST: the local Kubernetes node's address, for the pods).
import java.lang.reflect.Field;
import java.util.concurrent.CountDownLatch;
import org.apache.solr.embedded.JettyConfig;
import org.apache.solr.embedded.JettySolrRunner;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

public class SolrLauncher {
  public static void main(String[] args) throws Exception {
    if (args.length < 2 || args.length > 3) {
      System.err.println("usage: SolrLauncher SOLR_HOME PORT [HOST]");
      System.exit(2);
    }
    JettyConfig config = JettyConfig.builder().setPort(Integer.parseInt(args[1])).setContext("/solr").build();
    JettySolrRunner solr = new JettySolrRunner(args[0], config);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        solr.stop();
      } catch (Exception e) {
        e.printStackTrace();
      } finally {
        stopped.countDown();
      }
    }));
    solr.start();
    System.out.println("solr started at " + solr.getBaseUrl());
    if (args.length == 3 && !args[2].equals("127.0.0.1")) {
      System.out.println("solr also listening on " + listenAlsoOn(solr, args[2], Integer.parseInt(args[1])));
    }
    stopped.await();
  }

  // the runner keeps its Jetty Server private: reached by reflection, the new HTTP/1.1 connector takes the existing
  // one's HTTP settings and shares its handlers
  private static String listenAlsoOn(JettySolrRunner solr, String host, int port) throws Exception {
    Field field = JettySolrRunner.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(solr);
    ServerConnector existing = (ServerConnector) server.getConnectors()[0];
    HttpConfiguration http = existing.getConnectionFactory(HttpConnectionFactory.class).getHttpConfiguration();
    ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
    connector.setHost(host);
    connector.setPort(port);
    server.addConnector(connector);
    connector.start();
    return host + ":" + connector.getLocalPort();
  }
}
