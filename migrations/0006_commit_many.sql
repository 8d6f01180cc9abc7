-- Several commits of one session in one statement (issue 16). The parallel steps of a round reach their commits
-- together, and a session's commits in one process go one at a time anyway (the gapless log orders them), so the
-- worker sends the commits waiting for their turn as one batch: what bo1_commit (0005) does for one commit, for all
-- of them in their order, with one fence, one terminal check and one seq allocation. The batch's steps, events (in
-- order, numbered from the allocated base), ledger rows and patches (applied in order: a later one sees an earlier
-- one's progress) are given as arrays; `p_case_memory` the memory folded over all of them ({merge: its changed
-- top-level keys} or {all: the memory}). The caller ends a
-- batch at a commit that ends the session, and never mixes leases in one. `p_open` are pending ledger rows
-- (bo1_open) of the session's next model calls that ride along: written only if the batch lands, their ids in
-- `r_open`. `p_side` are rows the batch's write hooks handed over (bo1_side_rows). bo1_commit stays for the trees that still call it (a bench of another version against the same database).

-- One session patch onto the row, as bo1_commit applies it.
CREATE FUNCTION bo1_patch(p_session uuid, p_patch jsonb, p_ts timestamptz) RETURNS void
LANGUAGE sql AS $$
  UPDATE sessions s SET
    status = coalesce(p_patch ->> 'status', s.status),
    phase = coalesce(p_patch ->> 'phase', s.phase),
    progress = CASE WHEN p_patch ? 'progress' OR p_patch ? 'subProblemProgress' THEN bo1_progress(s.progress, p_patch) ELSE s.progress END,
    results = CASE WHEN p_patch ? 'results' THEN p_patch -> 'results' ELSE s.results END,
    error = CASE WHEN p_patch ? 'error' THEN nullif(p_patch -> 'error', 'null'::jsonb) ELSE s.error END,
    checkpoint = CASE WHEN p_patch ? 'checkpoint' THEN nullif(p_patch -> 'checkpoint', 'null'::jsonb) ELSE s.checkpoint END,
    ended_at = CASE WHEN coalesce((p_patch ->> 'ended')::boolean, false) THEN p_ts ELSE s.ended_at END
  WHERE s.id = p_session
$$;
--> statement-breakpoint
-- A session's ledger rows settled: a call written ahead (openCall) is updated in place; a call that had none gets a
-- row. One statement for any number of them: a step's commit, or a failed or fenced step's calls after it.
CREATE FUNCTION bo1_settle(p_session uuid, p_calls jsonb) RETURNS void
LANGUAGE sql AS $$
  WITH x AS (
    SELECT * FROM jsonb_to_recordset(p_calls) AS x(
      id bigint, "stepKey" text, provider text, model text, phase text, purpose text, "promptVersion" text,
      "inputTokens" integer, "outputTokens" integer, "cacheReadTokens" integer, "cacheWriteTokens" integer,
      "prefixTokens" integer, "prefixHash" text, "costUsd" numeric, "latencyMs" integer, attempt integer, outcome text)
  ), settled AS (
    UPDATE llm_calls l SET
      step_key = x."stepKey", provider = x.provider, model = x.model, phase = x.phase, purpose = x.purpose,
      prompt_version = x."promptVersion", input_tokens = x."inputTokens", output_tokens = x."outputTokens",
      cache_read_tokens = coalesce(x."cacheReadTokens", l.cache_read_tokens),
      cache_write_tokens = coalesce(x."cacheWriteTokens", l.cache_write_tokens),
      prefix_tokens = coalesce(x."prefixTokens", l.prefix_tokens),
      prefix_hash = coalesce(x."prefixHash", l.prefix_hash),
      cost_usd = x."costUsd", latency_ms = x."latencyMs", attempt = x.attempt, outcome = x.outcome
    FROM x WHERE x.id IS NOT NULL AND l.id = x.id AND l.session_id = p_session
  )
  INSERT INTO llm_calls (session_id, step_key, provider, model, phase, purpose, prompt_version, input_tokens, output_tokens,
    cache_read_tokens, cache_write_tokens, prefix_tokens, prefix_hash, cost_usd, latency_ms, attempt, outcome)
  SELECT p_session, x."stepKey", x.provider, x.model, x.phase, x.purpose, x."promptVersion", x."inputTokens", x."outputTokens",
    coalesce(x."cacheReadTokens", 0), coalesce(x."cacheWriteTokens", 0), coalesce(x."prefixTokens", 0), coalesce(x."prefixHash", ''),
    x."costUsd", x."latencyMs", x.attempt, x.outcome
  FROM x WHERE x.id IS NULL
$$;
--> statement-breakpoint
-- Pending ledger rows, written ahead of their model calls (openCall), several at once; their ids in the rows' order.
-- Each id is drawn in the first CTE, which is evaluated once (nextval is volatile), and the array is built from it
-- in the rows' order: nothing depends on the order an INSERT's RETURNING happens to use.
CREATE FUNCTION bo1_open(p_rows jsonb) RETURNS bigint[]
LANGUAGE sql AS $$
  WITH x AS (
    SELECT nextval('llm_calls_id_seq'::regclass) AS new_id, x.* FROM jsonb_populate_recordset(NULL::llm_calls, p_rows) WITH ORDINALITY AS x
  ), ins AS (
    INSERT INTO llm_calls (id, session_id, step_key, provider, model, phase, purpose, prompt_version, input_tokens, output_tokens,
      cache_read_tokens, cache_write_tokens, prefix_tokens, prefix_hash, cost_usd, latency_ms, attempt, outcome)
    SELECT new_id, session_id, step_key, provider, model, phase, purpose, prompt_version, input_tokens, output_tokens,
      cache_read_tokens, cache_write_tokens, prefix_tokens, prefix_hash, cost_usd, latency_ms, attempt, 'pending' FROM x
  )
  SELECT coalesce(array_agg(new_id ORDER BY ordinality), '{}') FROM x
$$;
--> statement-breakpoint
-- Rows a batch's write hooks hand over (a step's expert memories, a round's novelty utterances), written with the
-- batch, after its fence: the step and its rows land together or not at all, in one statement and no transaction.
-- The memory store's tenancy check is made here: every row hangs off a session of its own tenant.
CREATE FUNCTION bo1_side_rows(p_side jsonb) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM (
      SELECT x.session_id, x.tenant_id FROM jsonb_populate_recordset(NULL::expert_memories, coalesce(p_side -> 'expert_memories', '[]')) x
      UNION ALL
      SELECT x.session_id, x.tenant_id FROM jsonb_populate_recordset(NULL::utterances, coalesce(p_side -> 'utterances', '[]')) x
    ) r
    WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = r.session_id AND s.tenant_id = r.tenant_id)
  ) THEN
    RAISE EXCEPTION 'bo1 tenancy: a session id does not belong to this tenant';
  END IF;
  -- Idempotent on id, as the memory store's own insert.
  INSERT INTO expert_memories (id, tenant_id, scope, session_id, sub_problem_id, persona, category, summary, position, confidence,
    anonymised, model, prompt_version, embedding, embedding_bits, embedding_provider, embedding_dim, created_at)
  SELECT x.id, x.tenant_id, x.scope, x.session_id, x.sub_problem_id, x.persona, x.category, x.summary, x.position, x.confidence,
    x.anonymised, x.model, x.prompt_version, x.embedding, x.embedding_bits, x.embedding_provider, x.embedding_dim, coalesce(x.created_at, now())
  FROM jsonb_populate_recordset(NULL::expert_memories, coalesce(p_side -> 'expert_memories', '[]')) x
  ON CONFLICT (id) DO NOTHING;
  INSERT INTO utterances (tenant_id, session_id, sub_problem_id, round, persona, kind, text, embedding, embedding_provider, created_at)
  SELECT x.tenant_id, x.session_id, x.sub_problem_id, x.round, x.persona, x.kind, x.text, x.embedding, x.embedding_provider, coalesce(x.created_at, now())
  FROM jsonb_populate_recordset(NULL::utterances, coalesce(p_side -> 'utterances', '[]')) x;
END
$$;
--> statement-breakpoint
CREATE FUNCTION bo1_commit_many(
  p_session uuid,
  p_lease integer,
  p_expect integer,
  p_steps jsonb,
  p_events jsonb,
  p_ts timestamptz,
  p_calls jsonb,
  p_patches jsonb,
  p_case_memory jsonb,
  p_open jsonb,
  p_side jsonb
) RETURNS TABLE (r_ok boolean, r_base integer, r_lease integer, r_status text, r_last_seq integer, r_case_memory jsonb, r_open bigint[])
LANGUAGE plpgsql AS $$
DECLARE
  v_n integer := jsonb_array_length(p_events);
  v_base integer;
  v_lease integer;
  v_patch jsonb;
BEGIN
  -- The fence, the terminal check, the head check and the seq allocation: one UPDATE, which takes the row's lock.
  UPDATE sessions s SET
    last_seq = s.last_seq + v_n,
    updated_at = p_ts,
    -- Mostly only the top-level keys the fold changed come (src/db/commit.ts, memoryChange): merged onto the stored
    -- memory, which is the one they were folded from (the head check below); or the whole memory.
    case_memory = CASE
      WHEN p_case_memory IS NULL THEN s.case_memory
      WHEN p_case_memory ? 'merge' THEN s.case_memory || (p_case_memory -> 'merge')
      ELSE p_case_memory -> 'all' END
  WHERE s.id = p_session
    AND (p_lease IS NULL OR s.lease = p_lease)
    AND s.status NOT IN ('completed', 'failed', 'cancelled')
    AND (p_expect IS NULL OR s.last_seq = p_expect)
  RETURNING s.last_seq - v_n, s.lease INTO v_base, v_lease;

  IF NOT FOUND THEN
    -- Refused: nothing was written. No row at all is a missing session.
    RETURN QUERY SELECT false, NULL::integer, s.lease, s.status, s.last_seq, s.case_memory, NULL::bigint[] FROM sessions s WHERE s.id = p_session;
    RETURN;
  END IF;

  -- Most steps patch nothing; those that do, in their order, on the row this statement already holds.
  FOR v_patch IN SELECT e.v FROM jsonb_array_elements(p_patches) WITH ORDINALITY AS e(v, ord) ORDER BY e.ord LOOP
    PERFORM bo1_patch(p_session, v_patch, p_ts);
  END LOOP;

  INSERT INTO steps (session_id, key, result, lease)
  SELECT p_session, x.key, x.result, v_lease FROM jsonb_to_recordset(p_steps) AS x(key text, result jsonb);

  IF v_n > 0 THEN
    INSERT INTO session_events (session_id, seq, type, data, ts)
    SELECT p_session, v_base + e.ord::integer, e.v ->> 'type', e.v -> 'data', p_ts
    FROM jsonb_array_elements(p_events) WITH ORDINALITY AS e(v, ord);
  END IF;

  PERFORM bo1_settle(p_session, p_calls);

  IF p_side <> '{}'::jsonb THEN
    PERFORM bo1_side_rows(p_side);
  END IF;

  RETURN QUERY SELECT true, v_base, v_lease, NULL::text, v_base + v_n, NULL::jsonb,
    CASE WHEN jsonb_array_length(p_open) > 0 THEN bo1_open(p_open) ELSE '{}'::bigint[] END;
END
$$;
