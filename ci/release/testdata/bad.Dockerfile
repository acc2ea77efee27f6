# A Dockerfile that breaks every rule of the image policy: ci/tests/release.sh checks that the linters see it.
FROM maven:latest as build
RUN mvn package

FROM eclipse-temurin
COPY --from=build /target/app.jar /app.jar
USER root
ENTRYPOINT java -jar /app.jar
