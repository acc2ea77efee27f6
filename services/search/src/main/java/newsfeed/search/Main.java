package newsfeed.search;

import newsfeed.common.kafka.DeadLetterCommand;
import newsfeed.common.lifecycle.ServiceMain;

/**
 * Starts the search service; SIGTERM undeploys it gracefully (drain HTTP, commit, close) before exiting.
 * {@code dead-letters list|replay} runs that command instead ({@link DeadLetterCommand}).
 */
public final class Main {
  private Main() {
  }

  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("dead-letters")) {
      System.exit(DeadLetterCommand.run(args,
          SearchConfig.fromEnv(System.getenv()).events(), System.out, System.err));
    }
    ServiceMain.run("search", SearchConfig::fromEnv, SearchConfig::shutdownGrace, SearchVerticle::new);
  }
}
