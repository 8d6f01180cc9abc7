-- Recall for one expert answers its Hamming-distance shortlist from this index alone (see src/memory/hybrid.ts).
CREATE INDEX IF NOT EXISTS "expert_memories_prefilter_idx" ON "expert_memories" ("tenant_id", "persona", "embedding_dim")
  INCLUDE ("embedding_bits", "id", "session_id", "embedding_provider")
  WHERE "scope" = 'session' AND "superseded_by" IS NULL;
