package newsfeed.socialgraph;

import newsfeed.common.lifecycle.ServiceMain;

/** Starts the social-graph service; SIGTERM undeploys it gracefully (drain HTTP, close the pools) before exiting. */
public final class Main {
  private Main() {
  }

  public static void main(String[] args) {
    ServiceMain.run("social-graph", SocialGraphConfig::fromEnv, SocialGraphConfig::shutdownGrace,
        SocialGraphVerticle::new);
  }
}
