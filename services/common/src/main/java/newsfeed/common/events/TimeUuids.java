package newsfeed.common.events;

import java.util.UUID;

/** Reads the timestamp of a version-1 (time-based) UUID, the type of Cassandra's timeuuid. */
public final class TimeUuids {
  // 100-ns intervals between the UUID epoch (1582-10-15) and the Unix epoch
  private static final long UUID_EPOCH_OFFSET = 0x01B21DD213814000L;

  private TimeUuids() {
  }

  public static long unixMillis(UUID timeUuid) {
    return (timeUuid.timestamp() - UUID_EPOCH_OFFSET) / 10_000;
  }

  /** Microseconds since the Unix epoch: the unit of Cassandra's write timestamps. */
  public static long unixMicros(UUID timeUuid) {
    return (timeUuid.timestamp() - UUID_EPOCH_OFFSET) / 10;
  }
}
