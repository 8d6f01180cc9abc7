-- A session's creation in one statement (issue 16: POST → first SSE event). The API inserted the session and its
-- session.created event in a transaction of four round trips, six with the tenant's cap of active sessions (an
-- advisory lock on the tenant, then a count). bo1_admit does the cap's part inside the INSERT's own statement:
-- it takes the tenant's lock, then counts in a fresh snapshot (a plpgsql statement takes its own in READ
-- COMMITTED, so a create that held the lock before us and committed is counted), and raises when the cap is
-- taken. The lock is held to the end of the statement's transaction, so two creates of a tenant still queue.
CREATE FUNCTION bo1_admit(p_tenant text, p_cap integer, p_active text[]) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF p_cap > 0 THEN
    PERFORM pg_advisory_xact_lock(hashtext('bo1:tenant:' || p_tenant));
    IF (SELECT count(*) FROM sessions WHERE tenant_id = p_tenant AND status = ANY (p_active)) >= p_cap THEN
      RAISE EXCEPTION 'bo1: the tenant''s cap of active sessions is taken' USING ERRCODE = 'P0001', HINT = 'bo1:too-many-sessions';
    END IF;
  END IF;
  RETURN true;
END
$$;
