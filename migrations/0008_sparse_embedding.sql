-- The exact re-rank of a vector shortlist multiplies only an embedding's non-zero components (src/memory/hybrid.ts).
-- Postgres derives them, so every way a row is written (drizzle inserts, bo1_commit_many's side rows) keeps them.
-- Positions are 0-based; values and the squared norm are summed in element order, so the cosine is the same double
-- that domain/metrics' cosine() gives.
CREATE OR REPLACE FUNCTION bo1_nonzero_at(v real[]) RETURNS integer[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(i - array_lower(v, 1) ORDER BY i), '{}') FROM generate_subscripts(v, 1) i WHERE v[i] <> 0
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION bo1_nonzero(v real[]) RETURNS real[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(v[i] ORDER BY i), '{}') FROM generate_subscripts(v, 1) i WHERE v[i] <> 0
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION bo1_norm2(v real[]) RETURNS double precision LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(sum(x::float8 * x::float8), 0) FROM unnest(v) x
$$;--> statement-breakpoint
-- One rewrite per table.
ALTER TABLE "expert_memories"
  ADD COLUMN "embedding_at" integer[] GENERATED ALWAYS AS (bo1_nonzero_at(embedding)) STORED NOT NULL,
  ADD COLUMN "embedding_nonzero" real[] GENERATED ALWAYS AS (bo1_nonzero(embedding)) STORED NOT NULL,
  ADD COLUMN "embedding_norm2" double precision GENERATED ALWAYS AS (bo1_norm2(embedding)) STORED NOT NULL;--> statement-breakpoint
ALTER TABLE "lessons"
  ADD COLUMN "embedding_at" integer[] GENERATED ALWAYS AS (bo1_nonzero_at(embedding)) STORED NOT NULL,
  ADD COLUMN "embedding_nonzero" real[] GENERATED ALWAYS AS (bo1_nonzero(embedding)) STORED NOT NULL,
  ADD COLUMN "embedding_norm2" double precision GENERATED ALWAYS AS (bo1_norm2(embedding)) STORED NOT NULL;
