package newsfeed.common.cassandra;

import com.datastax.oss.driver.api.core.CqlSessionBuilder;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.context.DriverContext;
import com.datastax.oss.driver.api.core.session.ProgrammaticArguments;
import com.datastax.oss.driver.internal.core.context.DefaultDriverContext;
import com.datastax.oss.driver.internal.core.context.NettyOptions;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoop;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.Timer;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;

/**
 * The driver's Netty options with its connections on one Vert.x event loop (the verticle's) instead of on I/O
 * threads of its own. A query and its response then stay on the thread that sent it; otherwise each crosses to a
 * driver I/O thread and back, two thread wake-ups per query. Socket options, the admin executor, the timer and the
 * allocator stay the driver's defaults ({@code defaults}), which also owns (and on close shuts down) only its own
 * executors: the event loop belongs to Vert.x. The defaults' own I/O group is never given a channel, so its
 * threads do not run while the session is open (Netty starts an event loop's thread on its first task; closing
 * the session starts them only to shut them down).
 */
final class EventLoopNettyOptions implements NettyOptions {
  private final NettyOptions defaults;
  private final EventLoop loop;
  private final Class<? extends Channel> channelClass;

  /** {@code channelClass}: a socket channel that registers with {@code loop} ({@link #socketChannelFor}). */
  EventLoopNettyOptions(NettyOptions defaults, EventLoop loop, Class<? extends Channel> channelClass) {
    this.defaults = defaults;
    this.loop = loop;
    this.channelClass = channelClass;
  }

  /**
   * The socket channel that registers with {@code loop}: NIO's, or epoll's when Vert.x runs its native transport
   * on Linux; null for any other (kqueue, io_uring), whose connections then stay on the driver's own threads.
   */
  static Class<? extends Channel> socketChannelFor(EventLoop loop) {
    if (loop instanceof IoEventLoop io) {
      if (io.isIoType(NioIoHandler.class)) {
        return NioSocketChannel.class;
      }
      if (io.isIoType(EpollIoHandler.class)) {
        return EpollSocketChannel.class;
      }
    }
    return null;
  }

  /** A session builder whose sessions use these options on {@code loop} ({@link #socketChannelFor} not null). */
  static CqlSessionBuilder sessionBuilder(EventLoop loop) {
    Class<? extends Channel> channelClass = socketChannelFor(loop);
    return new CqlSessionBuilder() {
      @Override
      protected DriverContext buildContext(DriverConfigLoader configLoader, ProgrammaticArguments arguments) {
        return new DefaultDriverContext(configLoader, arguments) {
          @Override
          protected NettyOptions buildNettyOptions() {
            return new EventLoopNettyOptions(super.buildNettyOptions(), loop, channelClass);
          }
        };
      }
    };
  }

  @Override
  public EventLoopGroup ioEventLoopGroup() {
    return loop;   // an event loop is a group of itself: every connection of the session lands on it
  }

  @Override
  public Class<? extends Channel> channelClass() {
    return channelClass;
  }

  @Override
  public EventExecutorGroup adminEventExecutorGroup() {
    return defaults.adminEventExecutorGroup();
  }

  @Override
  public ByteBufAllocator allocator() {
    return defaults.allocator();
  }

  @Override
  public void afterBootstrapInitialized(Bootstrap bootstrap) {
    defaults.afterBootstrapInitialized(bootstrap);
  }

  @Override
  public void afterChannelInitialized(Channel channel) {
    defaults.afterChannelInitialized(channel);
  }

  @Override
  public Future<Void> onClose() {
    return defaults.onClose();
  }

  @Override
  public Timer getTimer() {
    return defaults.getTimer();
  }
}
