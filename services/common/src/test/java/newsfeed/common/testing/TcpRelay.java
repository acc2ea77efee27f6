package newsfeed.common.testing;

import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay in front of a real store or service, so a test can take it away from the service under test (close
 * the listener and every connection: what a stopped process looks like) and give it back on the same port,
 * without touching the shared one itself.
 */
public final class TcpRelay {
  private final Vertx vertx;
  private final int port;
  private final String targetHost;
  private final int targetPort;
  private final NetClient client;
  private final Set<NetSocket> sockets = ConcurrentHashMap.newKeySet();
  private NetServer server;

  public TcpRelay(Vertx vertx, int port, String targetHost, int targetPort) {
    this.vertx = vertx;
    this.port = port;
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.client = vertx.createNetClient();
  }

  public void start() {
    server = vertx.createNetServer().connectHandler(in -> {
      in.pause();
      sockets.add(in);
      client.connect(targetPort, targetHost).onComplete(ar -> {
        if (ar.failed()) {
          in.close();
          return;
        }
        NetSocket out = ar.result();
        sockets.add(out);
        in.handler(out::write);
        out.handler(in::write);
        in.closeHandler(v -> out.close());
        out.closeHandler(v -> in.close());
        in.resume();
      });
    });
    server.listen(port, "127.0.0.1").await();
  }

  public void stop() {
    server.close().await();
    for (NetSocket s : sockets) {
      s.close();
    }
    sockets.clear();
  }
}
