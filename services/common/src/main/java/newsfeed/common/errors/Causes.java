package newsfeed.common.errors;

import java.util.stream.Stream;

/** The chain of an exception and its causes, for the checks that look for one kind of failure anywhere in it. */
public final class Causes {
  private Causes() {
  }

  /** The exception and its causes, outermost first. */
  public static Stream<Throwable> of(Throwable err) {
    return Stream.iterate(err, e -> e != null, e -> e.getCause() == e ? null : e.getCause());
  }

  /** Whether the exception or one of its causes is of the type. */
  public static boolean include(Throwable err, Class<? extends Throwable> type) {
    return of(err).anyMatch(type::isInstance);
  }
}
