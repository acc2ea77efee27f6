package newsfeed.search;

import newsfeed.common.lifecycle.ServiceMain;

/** Starts the search service; SIGTERM undeploys it gracefully (drain HTTP, commit, close) before exiting. */
public final class Main {
  private Main() {
  }

  public static void main(String[] args) {
    ServiceMain.run("search", SearchConfig::fromEnv, SearchConfig::shutdownGrace, SearchVerticle::new);
  }
}
