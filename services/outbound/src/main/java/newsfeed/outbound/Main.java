package newsfeed.outbound;

import newsfeed.common.lifecycle.ServiceMain;

/** Starts the outbound service; SIGTERM undeploys it gracefully (drain HTTP, flush Kafka, close) before exiting. */
public final class Main {
  private Main() {
  }

  public static void main(String[] args) {
    ServiceMain.run("outbound", OutboundConfig::fromEnv, OutboundConfig::shutdownGrace, OutboundVerticle::new);
  }
}
