-- newsfeed relational schema (social graph). Idempotent: run on every install/upgrade and by ci/local/stack.sh up.
-- The caller connects to database `newsfeed` as its owner (user `newsfeed`).

CREATE TABLE IF NOT EXISTS participant (
    id         bigserial   PRIMARY KEY,
    name       text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Friendship is symmetric at the API level but stored as TWO directed rows per pair: (a,b) and (b,a),
-- written in one transaction. "Friends of X" is then a single index range scan on from_id (the unique
-- index below, leading column from_id) with no OR / UNION, and each direction stays unique.
-- The friend link returned by the API is the row whose from_id is the participant asked about.
-- inserted_by: a random number of the request that inserted the row, until another request for the pair is answered
-- with it (then NULL). Undoing a befriend answered 503 deletes only rows with its number: never one a client got.
CREATE TABLE IF NOT EXISTS friendship (
    id          bigserial   PRIMARY KEY,
    from_id     bigint      NOT NULL REFERENCES participant (id) ON DELETE CASCADE,
    to_id       bigint      NOT NULL REFERENCES participant (id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    inserted_by bigint,
    CONSTRAINT friendship_pair_unique UNIQUE (from_id, to_id),
    CONSTRAINT friendship_not_self CHECK (from_id <> to_id)
);

-- Installs from before the column: adding a nullable column rewrites nothing.
ALTER TABLE friendship ADD COLUMN IF NOT EXISTS inserted_by bigint;

-- Reverse lookups (who lists X as a friend) and the ON DELETE CASCADE on to_id.
CREATE INDEX IF NOT EXISTS friendship_to_id_idx ON friendship (to_id);

-- The Idempotency-Key of a POST /participant: the participant the key made, so a retry with it gets that one back
-- instead of a second. answered: a retry was answered with it, so it stays even when its own request was answered
-- 503 (social-graph deletes such a participant otherwise). social-graph forgets keys after 24 hours.
CREATE TABLE IF NOT EXISTS participant_request (
    key            text        PRIMARY KEY,
    participant_id bigint      NOT NULL REFERENCES participant (id) ON DELETE CASCADE,
    answered       boolean     NOT NULL DEFAULT false,
    created_at     timestamptz NOT NULL DEFAULT now()
);

-- The cascade from participant, the cancellation's lookup, and the purge of keys older than 24 hours.
CREATE INDEX IF NOT EXISTS participant_request_participant_id_idx ON participant_request (participant_id);
CREATE INDEX IF NOT EXISTS participant_request_created_at_idx ON participant_request (created_at);
