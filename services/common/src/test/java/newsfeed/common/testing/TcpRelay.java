package newsfeed.common.testing;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay in front of a real store or service, so a test can take it away from the service under test (close
 * the listener and every connection: what a stopped process looks like) and give it back on the same port,
 * without touching the shared one itself. It can also hold the answers: requests still reach the store, which
 * does the work, but what it answers waits in the relay until released (a lost or late answer, as a network
 * partition makes it), then arrives in order.
 */
public final class TcpRelay {
  private final Vertx vertx;
  private final int port;
  private final String targetHost;
  private final int targetPort;
  private final NetClient client;
  private final Set<NetSocket> sockets = ConcurrentHashMap.newKeySet();
  private final List<Runnable> flushes = new CopyOnWriteArrayList<>();
  private volatile boolean holding;
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
        // both sockets run on this connection's context, so the buffer needs no lock and keeps the order
        Context context = Vertx.currentContext();
        List<Buffer> held = new ArrayList<>();
        out.handler(answer -> {
          if (holding || !held.isEmpty()) {
            held.add(answer);
          } else {
            in.write(answer);
          }
        });
        flushes.add(() -> context.runOnContext(v -> {
          held.forEach(in::write);
          held.clear();
        }));
        in.closeHandler(v -> out.close());
        out.closeHandler(v -> in.close());
        in.resume();
      });
    });
    server.listen(port, "127.0.0.1").await();
  }

  public int port() {
    return port;
  }

  /** From now on the store's answers wait in the relay (requests still pass). */
  public void holdAnswers() {
    holding = true;
  }

  /** The held answers go out, in order, and later ones pass again. */
  public void releaseAnswers() {
    holding = false;
    flushes.forEach(Runnable::run);
  }

  public void stop() {
    server.close().await();
    for (NetSocket s : sockets) {
      s.close();
    }
    sockets.clear();
  }
}
