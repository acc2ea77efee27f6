package newsfeed.edge;

import newsfeed.common.lifecycle.ServiceMain;

/** Starts the edge service; SIGTERM undeploys it gracefully (drain HTTP, close the clients) before exiting. */
public final class Main {
  private Main() {
  }

  public static void main(String[] args) {
    ServiceMain.run("edge", EdgeConfig::fromEnv, EdgeConfig::shutdownGrace, EdgeVerticle::new);
  }
}
