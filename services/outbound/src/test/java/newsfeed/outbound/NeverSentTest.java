package newsfeed.outbound;

import com.datastax.oss.driver.api.core.AllNodesFailedException;
import com.datastax.oss.driver.api.core.DriverTimeoutException;
import com.datastax.oss.driver.api.core.NoNodeAvailableException;
import com.datastax.oss.driver.api.core.connection.ClosedConnectionException;
import com.datastax.oss.driver.api.core.connection.ConnectionInitException;
import com.datastax.oss.driver.api.core.metadata.Node;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.net.ConnectException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which failed writes need no cancellation: only those the driver never sent. */
class NeverSentTest {
  private static final Node NODE = (Node) Proxy.newProxyInstance(Node.class.getClassLoader(),
      new Class<?>[] {Node.class}, (proxy, method, args) -> switch (method.getName()) {
        case "toString" -> "node";
        case "hashCode" -> 1;
        case "equals" -> proxy == args[0];
        default -> null;
      });

  private static AllNodesFailedException failedOn(Throwable error) {
    return AllNodesFailedException.fromErrors(List.of(Map.entry(NODE, error)));
  }

  @Test
  void noNodeOrARefusedConnectionNeverSentTheWrite() {
    assertTrue(OutboundHandler.neverSent(new NoNodeAvailableException()));
    assertTrue(OutboundHandler.neverSent(failedOn(new ConnectException("Connection refused"))));
    assertTrue(OutboundHandler.neverSent(failedOn(new ConnectionInitException("handshake", null))));
    assertTrue(OutboundHandler.neverSent(new CompletionException(new NoNodeAvailableException())), "wrapped");
  }

  @Test
  void aTimeoutOrAConnectionLostInFlightMayHaveWritten() {
    assertFalse(OutboundHandler.neverSent(new DriverTimeoutException("Query timed out after PT2S")));
    assertFalse(OutboundHandler.neverSent(failedOn(new ClosedConnectionException("Lost connection"))));
    assertFalse(OutboundHandler.neverSent(new IllegalStateException("anything else")));
  }
}
