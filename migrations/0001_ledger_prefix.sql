ALTER TABLE "llm_calls" ADD COLUMN "prefix_tokens" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "llm_calls" ADD COLUMN "prefix_hash" text DEFAULT '' NOT NULL;