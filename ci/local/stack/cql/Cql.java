// Minimal CQL runner for the local stack (DataStax/Apache java-driver 4.x), so no Python cqlsh is needed.
// Usage: Cql HOST:PORT LOCAL_DC [-k KEYSPACE] (-f FILE | -e STATEMENTS)...
// Runs the ';'-separated statements of every -f/-e in order in one session (`USE ks` switches keyspace);
// prints the rows of each result as tab-separated lines. With CQL_USERNAME (and CQL_PASSWORD) in the environment it
// logs in as that role (PasswordAuthenticator), so no password is on a command line.
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.cql.ColumnDefinition;
import com.datastax.oss.driver.api.core.cql.ResultSet;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

public class Cql {
  public static void main(String[] args) throws Exception {
    if (args.length < 4) usage();
    String[] hostPort = args[0].split(":");
    if (args.length % 2 != 0) usage();
    String dc = args[1], keyspace = null;
    List<String> statements = new ArrayList<>();
    for (int i = 2; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "-k" -> keyspace = args[i + 1];
        case "-f" -> statements.addAll(split(Files.readString(Path.of(args[i + 1]))));
        case "-e" -> statements.addAll(split(args[i + 1]));
        default -> usage();
      }
    }
    if (statements.isEmpty()) usage();
    DriverConfigLoader config = DriverConfigLoader.programmaticBuilder()
        .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(30))
        .withDuration(DefaultDriverOption.CONNECTION_INIT_QUERY_TIMEOUT, Duration.ofSeconds(10))
        .withDuration(DefaultDriverOption.CONTROL_CONNECTION_AGREEMENT_TIMEOUT, Duration.ofSeconds(30))
        // a one-shot client needs neither the schema nor the token map: skipping them halves start time
        .withBoolean(DefaultDriverOption.METADATA_SCHEMA_ENABLED, false)
        .withBoolean(DefaultDriverOption.METADATA_TOKEN_MAP_ENABLED, false)
        .build();
    var builder = CqlSession.builder()
        .addContactPoint(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])))
        .withLocalDatacenter(dc)
        .withConfigLoader(config);
    if (keyspace != null) builder = builder.withKeyspace(keyspace);
    String user = System.getenv("CQL_USERNAME");
    if (user != null && !user.isEmpty()) {
      String password = System.getenv("CQL_PASSWORD");
      builder = builder.withAuthCredentials(user, password == null ? "" : password);
    }
    try (CqlSession session = builder.build()) {
      for (String statement : statements) {
        ResultSet rs = session.execute(SimpleStatement.newInstance(statement));
        for (Row row : rs) {
          List<String> cells = new ArrayList<>();
          for (ColumnDefinition c : row.getColumnDefinitions()) cells.add(String.valueOf(row.getObject(c.getName())));
          System.out.println(String.join("\t", cells));
        }
      }
    }
  }

  static void usage() {
    System.err.println("usage: Cql HOST:PORT LOCAL_DC [-k KEYSPACE] (-f FILE | -e STATEMENTS)");
    System.exit(2);
  }

  // Splits on ';' outside quotes, dropping -- and // line comments and /* */ block comments.
  static List<String> split(String text) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    int n = text.length();
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      char next = i + 1 < n ? text.charAt(i + 1) : 0;
      if (c == '\'' || c == '"') {
        int j = i + 1;
        while (j < n && !(text.charAt(j) == c && (j + 1 >= n || text.charAt(j + 1) != c))) j += text.charAt(j) == c ? 2 : 1;
        cur.append(text, i, Math.min(j + 1, n));
        i = j;
      } else if ((c == '-' && next == '-') || (c == '/' && next == '/')) {
        while (i < n && text.charAt(i) != '\n') i++;
        cur.append('\n');
      } else if (c == '/' && next == '*') {
        int end = text.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 1;
        cur.append(' ');
      } else if (c == ';') {
        add(out, cur);
      } else {
        cur.append(c);
      }
    }
    add(out, cur);
    return out;
  }

  static void add(List<String> out, StringBuilder cur) {
    String s = cur.toString().trim();
    if (!s.isEmpty()) out.add(s);
    cur.setLength(0);
  }
}
