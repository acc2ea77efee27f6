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
 * partition makes it), then arrives in order. Or it can hold the requests, which then reach the store late. Either
 * can start with the request that holds given bytes (a statement's parameter, a COMMIT), on any connection.
 */
public final class TcpRelay {
  private final Vertx vertx;
  private final int port;
  private final String targetHost;
  private final int targetPort;
  private final NetClient client;
  private final Set<NetSocket> sockets = ConcurrentHashMap.newKeySet();
  private final List<Runnable> flushes = new CopyOnWriteArrayList<>();
  private final List<Runnable> requestFlushes = new CopyOnWriteArrayList<>();
  private volatile boolean holding;
  private volatile boolean holdingRequests;
  private volatile byte[] answersHeldFrom;
  private volatile byte[] requestsHeldFrom;
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
        // both sockets run on this connection's context, so the buffers need no lock and keep the order
        Context context = Vertx.currentContext();
        List<Buffer> heldRequests = new ArrayList<>();
        in.handler(request -> {
          if (matches(request, answersHeldFrom)) {
            answersHeldFrom = null;
            holding = true;
          }
          if (matches(request, requestsHeldFrom)) {
            requestsHeldFrom = null;
            holdingRequests = true;
          }
          if (holdingRequests || !heldRequests.isEmpty()) {
            heldRequests.add(request);
          } else {
            out.write(request);
          }
        });
        requestFlushes.add(() -> context.runOnContext(v -> {
          heldRequests.forEach(out::write);
          heldRequests.clear();
        }));
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

  // whether a chunk of a request holds the bytes (a statement's parameters travel in one chunk)
  private static boolean matches(Buffer chunk, byte[] marker) {
    if (marker == null) {
      return false;
    }
    byte[] bytes = chunk.getBytes();
    outer : for (int i = 0; i + marker.length <= bytes.length; i++) {
      for (int j = 0; j < marker.length; j++) {
        if (bytes[i + j] != marker[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
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

  /** Answers wait in the relay from the request that holds {@code marker} on (its own answer included). */
  public void holdAnswersFrom(byte[] marker) {
    answersHeldFrom = marker.clone();
  }

  /** Requests wait in the relay from the one that holds {@code marker} on (that one included). */
  public void holdRequestsFrom(byte[] marker) {
    requestsHeldFrom = marker.clone();
  }

  /** The held requests go out, in order, and later ones pass again. */
  public void releaseRequests() {
    holdingRequests = false;
    requestFlushes.forEach(Runnable::run);
  }

  /** Every connection closed, what was held dropped: the store is gone (start() brings it back, passing all). */
  public void stop() {
    server.close().await();
    cut();
  }

  /**
   * Every connection closed and what was held dropped, while the relay keeps listening: the answers in flight are
   * lost and new connections pass all. Unlike stop() and start() it never lets go of its port, which another
   * socket could take meanwhile.
   */
  public void cut() {
    holding = false;
    holdingRequests = false;
    answersHeldFrom = null;
    requestsHeldFrom = null;
    for (NetSocket s : sockets) {
      s.close();
    }
    sockets.clear();
    flushes.clear();
    requestFlushes.clear();
  }
}
