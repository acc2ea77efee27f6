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
CREATE TABLE IF NOT EXISTS friendship (
    id         bigserial   PRIMARY KEY,
    from_id    bigint      NOT NULL REFERENCES participant (id) ON DELETE CASCADE,
    to_id      bigint      NOT NULL REFERENCES participant (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT friendship_pair_unique UNIQUE (from_id, to_id),
    CONSTRAINT friendship_not_self CHECK (from_id <> to_id)
);

-- Reverse lookups (who lists X as a friend) and the ON DELETE CASCADE on to_id.
CREATE INDEX IF NOT EXISTS friendship_to_id_idx ON friendship (to_id);
