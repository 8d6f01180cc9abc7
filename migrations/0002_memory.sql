CREATE TABLE "expert_memories" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"scope" text NOT NULL,
	"session_id" uuid NOT NULL,
	"sub_problem_id" text NOT NULL,
	"persona" text NOT NULL,
	"category" text NOT NULL,
	"summary" text NOT NULL,
	"position" text NOT NULL,
	"confidence" real NOT NULL,
	"anonymised" boolean NOT NULL,
	"model" text NOT NULL,
	"prompt_version" text NOT NULL,
	"embedding" real[] NOT NULL,
	"embedding_bits" bit varying NOT NULL,
	"embedding_provider" text NOT NULL,
	"embedding_dim" integer NOT NULL,
	"tsv" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', summary || ' ' || position)) STORED NOT NULL,
	"superseded_by" uuid,
	"superseded_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lesson_sources" (
	"lesson_id" uuid NOT NULL,
	"session_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "lesson_sources_lesson_id_session_id_pk" PRIMARY KEY("lesson_id","session_id")
);
--> statement-breakpoint
CREATE TABLE "lessons" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"type" text NOT NULL,
	"lesson" text NOT NULL,
	"trigger_conditions" text NOT NULL,
	"suggested_fix" text NOT NULL,
	"confidence" real NOT NULL,
	"tags" text[] NOT NULL,
	"reinforcements" integer DEFAULT 1 NOT NULL,
	"model" text NOT NULL,
	"prompt_version" text NOT NULL,
	"embedding" real[] NOT NULL,
	"embedding_bits" bit varying NOT NULL,
	"embedding_provider" text NOT NULL,
	"embedding_dim" integer NOT NULL,
	"tsv" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', lesson || ' ' || trigger_conditions || ' ' || suggested_fix)) STORED NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "utterances" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"session_id" uuid NOT NULL,
	"sub_problem_id" text NOT NULL,
	"round" integer NOT NULL,
	"persona" text,
	"kind" text NOT NULL,
	"text" text NOT NULL,
	"embedding" real[] NOT NULL,
	"embedding_provider" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "case_memory" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "expert_memories" ADD CONSTRAINT "expert_memories_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lesson_sources" ADD CONSTRAINT "lesson_sources_lesson_id_lessons_id_fk" FOREIGN KEY ("lesson_id") REFERENCES "public"."lessons"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lesson_sources" ADD CONSTRAINT "lesson_sources_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "utterances" ADD CONSTRAINT "utterances_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "expert_memories_recall_idx" ON "expert_memories" USING btree ("tenant_id","scope","persona","created_at");--> statement-breakpoint
CREATE INDEX "expert_memories_session_idx" ON "expert_memories" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "expert_memories_tsv_idx" ON "expert_memories" USING gin ("tsv");--> statement-breakpoint
CREATE INDEX "lesson_sources_session_idx" ON "lesson_sources" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "lessons_tenant_idx" ON "lessons" USING btree ("tenant_id","updated_at");--> statement-breakpoint
CREATE INDEX "lessons_tsv_idx" ON "lessons" USING gin ("tsv");--> statement-breakpoint
CREATE INDEX "utterances_session_idx" ON "utterances" USING btree ("session_id","sub_problem_id");--> statement-breakpoint
CREATE INDEX "utterances_created_idx" ON "utterances" USING btree ("created_at");