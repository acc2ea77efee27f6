#!/usr/bin/env bash
# poison.sh N: publishes N forged "outbound posted" events no consumer can process (a valid JSON object whose
# eventId is not a UUID: what a producer bug would write) straight into the local stack's events topic, each with
# its own key (so they land on different partitions), and prints the keys, one a line.
# Environment: NEWSFEED_RUN, NEWSFEED_PORT_OFFSET (the stack's, as for ci/local/stack.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
# shellcheck source=ci/local/stack/lib.sh
source ci/local/stack/lib.sh
# shellcheck source=ci/local/stack/stores/kafka.sh
source ci/local/stack/stores/kafka.sh
for ((i = 1; i <= ${1:?usage: poison.sh N}; i++)); do
  key="poison-$i-$$"
  kafka_tool produce "$STACK_HOST:$KAFKA_PORT" "$KAFKA_TOPIC" "$key" \
    "{\"eventId\":\"$key\",\"participantId\":1,\"subject\":\"poison\",\"story\":\"forged\",\"postedAtMillis\":0}" \
    > /dev/null
  echo "$key"
done
