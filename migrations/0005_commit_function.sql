-- A step's commit in one statement (issue 16). bo1_commit appends a step's events, its memoized result and
-- its ledger rows and applies the session patch, all or nothing, in one round trip: the session row is
-- updated first, so the lease check (the fence), the terminal check and the seq allocation are one atomic
-- UPDATE, and the row stays locked only for the rest of this statement and its commit, not across a
-- client's several round trips. `p_expect` is optimistic concurrency for the case memory, which the
-- caller folds in JavaScript: when set, the commit applies only if last_seq still equals it. A refused
-- commit writes nothing and returns the row's lease, status, last_seq and case memory so the caller can
-- tell a lost lease from a stale case memory (and retry the latter).

-- The session patch's progress: top-level keys merged, then one sub-problem's entry set.
CREATE FUNCTION bo1_progress(cur jsonb, patch jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN patch ? 'subProblemProgress'
    THEN jsonb_set(
      m || jsonb_build_object('subProblems', coalesce(m -> 'subProblems', '{}'::jsonb)),
      array['subProblems', patch -> 'subProblemProgress' ->> 'id'],
      patch -> 'subProblemProgress' -> 'value')
    ELSE m END
  FROM (SELECT cur || coalesce(patch -> 'progress', '{}'::jsonb) AS m) p
$$;
--> statement-breakpoint
CREATE FUNCTION bo1_commit(
  p_session uuid,
  p_lease integer,
  p_expect integer,
  p_step_key text,
  p_step_result jsonb,
  p_events jsonb,
  p_ts timestamptz,
  p_calls jsonb,
  p_patch jsonb,
  p_case_memory jsonb
) RETURNS TABLE (r_ok boolean, r_base integer, r_lease integer, r_status text, r_last_seq integer, r_case_memory jsonb)
LANGUAGE plpgsql AS $$
DECLARE
  v_n integer := jsonb_array_length(p_events);
  v_base integer;
  v_lease integer;
BEGIN
  UPDATE sessions s SET
    last_seq = s.last_seq + v_n,
    updated_at = p_ts,
    status = coalesce(p_patch ->> 'status', s.status),
    phase = coalesce(p_patch ->> 'phase', s.phase),
    progress = CASE WHEN p_patch ? 'progress' OR p_patch ? 'subProblemProgress' THEN bo1_progress(s.progress, p_patch) ELSE s.progress END,
    results = CASE WHEN p_patch ? 'results' THEN p_patch -> 'results' ELSE s.results END,
    error = CASE WHEN p_patch ? 'error' THEN nullif(p_patch -> 'error', 'null'::jsonb) ELSE s.error END,
    checkpoint = CASE WHEN p_patch ? 'checkpoint' THEN nullif(p_patch -> 'checkpoint', 'null'::jsonb) ELSE s.checkpoint END,
    ended_at = CASE WHEN coalesce((p_patch ->> 'ended')::boolean, false) THEN p_ts ELSE s.ended_at END,
    case_memory = coalesce(p_case_memory, s.case_memory)
  WHERE s.id = p_session
    AND (p_lease IS NULL OR s.lease = p_lease)
    AND s.status NOT IN ('completed', 'failed', 'cancelled')
    AND (p_expect IS NULL OR s.last_seq = p_expect)
  RETURNING s.last_seq - v_n, s.lease INTO v_base, v_lease;

  IF NOT FOUND THEN
    -- Refused: nothing was written. No row at all is a missing session.
    RETURN QUERY SELECT false, NULL::integer, s.lease, s.status, s.last_seq, s.case_memory FROM sessions s WHERE s.id = p_session;
    RETURN;
  END IF;

  IF p_step_key IS NOT NULL THEN
    INSERT INTO steps (session_id, key, result, lease) VALUES (p_session, p_step_key, p_step_result, v_lease);
  END IF;

  IF v_n > 0 THEN
    INSERT INTO session_events (session_id, seq, type, data, ts)
    SELECT p_session, v_base + e.ord::integer, e.v ->> 'type', e.v -> 'data', p_ts
    FROM jsonb_array_elements(p_events) WITH ORDINALITY AS e(v, ord);
  END IF;

  IF jsonb_array_length(p_calls) > 0 THEN
    -- Calls written ahead (openCall) are settled in place; a call that had no row gets one.
    UPDATE llm_calls l SET
      step_key = x."stepKey", provider = x.provider, model = x.model, phase = x.phase, purpose = x.purpose,
      prompt_version = x."promptVersion", input_tokens = x."inputTokens", output_tokens = x."outputTokens",
      cache_read_tokens = coalesce(x."cacheReadTokens", l.cache_read_tokens),
      cache_write_tokens = coalesce(x."cacheWriteTokens", l.cache_write_tokens),
      prefix_tokens = coalesce(x."prefixTokens", l.prefix_tokens),
      prefix_hash = coalesce(x."prefixHash", l.prefix_hash),
      cost_usd = x."costUsd", latency_ms = x."latencyMs", attempt = x.attempt, outcome = x.outcome
    FROM jsonb_to_recordset(p_calls) AS x(
      id bigint, "stepKey" text, provider text, model text, phase text, purpose text, "promptVersion" text,
      "inputTokens" integer, "outputTokens" integer, "cacheReadTokens" integer, "cacheWriteTokens" integer,
      "prefixTokens" integer, "prefixHash" text, "costUsd" numeric, "latencyMs" integer, attempt integer, outcome text)
    WHERE x.id IS NOT NULL AND l.id = x.id AND l.session_id = p_session;

    INSERT INTO llm_calls (session_id, step_key, provider, model, phase, purpose, prompt_version, input_tokens, output_tokens,
      cache_read_tokens, cache_write_tokens, prefix_tokens, prefix_hash, cost_usd, latency_ms, attempt, outcome)
    SELECT p_session, x."stepKey", x.provider, x.model, x.phase, x.purpose, x."promptVersion", x."inputTokens", x."outputTokens",
      coalesce(x."cacheReadTokens", 0), coalesce(x."cacheWriteTokens", 0), coalesce(x."prefixTokens", 0), coalesce(x."prefixHash", ''),
      x."costUsd", x."latencyMs", x.attempt, x.outcome
    FROM jsonb_to_recordset(p_calls) AS x(
      id bigint, "stepKey" text, provider text, model text, phase text, purpose text, "promptVersion" text,
      "inputTokens" integer, "outputTokens" integer, "cacheReadTokens" integer, "cacheWriteTokens" integer,
      "prefixTokens" integer, "prefixHash" text, "costUsd" numeric, "latencyMs" integer, attempt integer, outcome text)
    WHERE x.id IS NULL;
  END IF;

  RETURN QUERY SELECT true, v_base, v_lease, NULL::text, v_base + v_n, NULL::jsonb;
END
$$;
