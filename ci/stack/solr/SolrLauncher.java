// Runs a standalone Solr node in this JVM via the test framework's JettySolrRunner (no Solr distribution
// tarball on Maven Central). Cores under SOLR_HOME are found by core discovery (core.properties).
// Usage: SolrLauncher SOLR_HOME PORT     (context /solr; stops cleanly on SIGTERM)
import java.util.concurrent.CountDownLatch;
import org.apache.solr.embedded.JettyConfig;
import org.apache.solr.embedded.JettySolrRunner;

public class SolrLauncher {
  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: SolrLauncher SOLR_HOME PORT");
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
    stopped.await();
  }
}
