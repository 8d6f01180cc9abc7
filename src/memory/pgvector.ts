import { sql } from 'drizzle-orm';
import { rows, type Exec } from './hybrid';

const TABLES = ['expert_memories', 'lessons'] as const;

/**
 * Turns on the HNSW path where the `vector` extension is available: adds
 * `embedding_vec vector(dim)` to expert_memories and lessons and indexes it
 * for cosine distance. The column is generated from the portable `embedding`
 * (for rows of that dimension), so existing rows are backfilled by the ALTER
 * and no writer, this store or another, can leave it stale. Idempotent; the
 * portable `real[]` + sign-bit columns stay the source of truth. Returns
 * whether the vector path is on.
 */
export async function enableVectorIndex(db: Exec, dim: number): Promise<boolean> {
  if (!Number.isInteger(dim) || dim < 1 || dim > 2000) throw new RangeError(`HNSW indexes vectors of 1..2000 dimensions, got ${dim}`);
  const [available] = await rows(db, sql`select 1 from pg_available_extensions where name = 'vector'`);
  if (!available) return false;
  return db.transaction(async (tx) => {
    // Concurrent starters would race on CREATE EXTENSION and the ALTERs.
    await tx.execute(sql`select pg_advisory_xact_lock(715002)`);
    await tx.execute(sql`create extension if not exists vector`);
    const type = `vector(${dim})`;
    for (const table of TABLES) {
      const [existing] = await rows<{ type: string }>(
        tx,
        sql`select format_type(atttypid, atttypmod) as type from pg_attribute
            where attrelid = ${table}::regclass and attname = 'embedding_vec' and not attisdropped`,
      );
      if (existing && existing.type !== type) {
        throw new Error(`${table}.embedding_vec is ${existing.type}, not ${type}: changing the embedding dimension needs a migration`);
      }
      if (!existing) {
        await tx.execute(
          sql.raw(
            `alter table ${table} add column embedding_vec ${type}
             generated always as (case when embedding_dim = ${dim} then embedding::${type} end) stored`,
          ),
        );
      }
      await tx.execute(sql.raw(`create index if not exists ${table}_embedding_vec_idx on ${table} using hnsw (embedding_vec vector_cosine_ops)`));
    }
    return true;
  });
}
