package newsfeed.edge;

import graphql.GraphQL;
import graphql.analysis.MaxQueryDepthInstrumentation;
import graphql.execution.instrumentation.ChainedInstrumentation;
import graphql.schema.GraphQLSchema;
import graphql.schema.idl.SchemaGenerator;
import graphql.schema.idl.SchemaParser;
import newsfeed.common.auth.BearerTokens;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** The executable classic schema: classic.graphqls wired to the services' REST API. */
final class ClassicSchema {
  /**
   * Deepest query served: `participant { friends { friends { name } } }` is 4. Every level can multiply the
   * calls to the services, so a deeper query is refused (400) before any call.
   */
  static final int MAX_DEPTH = 5;

  private ClassicSchema() {
  }

  static String sdl() {
    try (InputStream in = ClassicSchema.class.getResourceAsStream("classic.graphqls")) {
      if (in == null) {
        throw new IllegalStateException("classic.graphqls is missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static GraphQL create(RestApi api, BearerTokens tokens) {
    GraphQLSchema schema = new SchemaGenerator()
        .makeExecutableSchema(new SchemaParser().parse(sdl()), new Resolvers(api, tokens).wiring());
    return GraphQL.newGraphQL(schema)
        .defaultDataFetcherExceptionHandler(new FieldErrors())
        .instrumentation(new ChainedInstrumentation(List.of(
            new MaxQueryDepthInstrumentation(MAX_DEPTH), new AnswerStatus())))
        .build();
  }
}
