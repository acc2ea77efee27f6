package newsfeed.inbound;

import newsfeed.common.lifecycle.ServiceMain;

/** Starts the inbound service; SIGTERM undeploys it gracefully (drain HTTP, commit, close) before exiting. */
public final class Main {
  private Main() {
  }

  public static void main(String[] args) {
    ServiceMain.run("inbound", InboundConfig::fromEnv, InboundConfig::shutdownGrace, InboundVerticle::new);
  }
}
