import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { PgDatabase } from 'drizzle-orm/pg-core';
export { before, encodeCursor, exactTs } from '../db/cursor';
import { expertMemories, lessons, sessions } from '../db/schema';
import { AppError } from '../domain/errors';
import { embeddingBits, toPgVector } from './vectors';

/**
 * Query pieces shared by the memory, lesson and utterance stores: candidate
 * retrieval (full text, and vectors by pgvector's HNSW or by Hamming distance
 * on hyperplane sign bits), reciprocal rank fusion, recency decay, cursors, and the
 * tenant check on session ids.
 */

/** Any drizzle Postgres database or transaction: node-postgres in the service, PGlite in tests. */
export type Exec = PgDatabase<any, any, any>;

/** Rows of a raw query; both drivers answer `{ rows }`. */
export async function rows<T>(exec: Exec, query: SQL): Promise<T[]> {
  const result = (await exec.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

export const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Ids come from URLs too: a malformed one is simply not found, rather than a Postgres cast error. */
export const isUuid = (id: string): boolean => UUID.test(id);

/** What a store throws for a row whose session is another tenant's. */
export const tenancyError = (): AppError => new AppError('tenancy', 'a session id does not belong to this tenant');

/** Refuses rows that would hang one tenant's data off another tenant's session (and so be deleted with it). */
export async function assertSessionsOwned(exec: Exec, tenantId: string, sessionIds: string[]): Promise<void> {
  const ids = [...new Set(sessionIds)];
  if (!ids.length) return;
  const found = await exec
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.tenantId, tenantId), inArray(sessions.id, ids)));
  if (found.length !== ids.length) throw tenancyError();
}

type Searchable = typeof expertMemories | typeof lessons;

/** Extra select-list columns a caller wants with its candidates (bare names of `table`). */
const more = (extra?: SQL) => (extra ? sql`, ${extra}` : sql``);

/**
 * The words a full-text search keeps from a whole statement: its three
 * longest distinct words (the most specific, as a rule), all required.
 * Requiring every word of a statement would almost never match; allowing any
 * word ranks most of an expert's rows on each recall (measured: p95 55 ms
 * against 13 ms at 100,000 rows). The vector side covers what this misses.
 */
export function keyTerms(text: string, max = 3): string {
  const words = [...new Set(text.toLowerCase().match(/[a-z][a-z0-9'-]{3,}/g) ?? [])];
  return words
    .sort((a, b) => b.length - a.length || a.localeCompare(b))
    .slice(0, max)
    .join(' ');
}

/** Full-text candidates, best ts_rank_cd first. `where` names bare columns of `table` and must include the tenant. */
export async function textCandidates<E extends object = object>(exec: Exec, table: Searchable, where: SQL, text: string, limit: number, extra?: SQL) {
  const terms = keyTerms(text);
  if (!terms) return [];
  return rows<{ id: string; fts_rank: number } & E>(exec, textShortlist(table, where, terms, limit, extra));
}

/** The query of textCandidates (exported so tests and the bench can EXPLAIN exactly what runs). `text` may be `p.terms`. */
export function textShortlist(table: Searchable, where: SQL, text: string | SQL, limit: number, extra?: SQL): SQL {
  return sql`select id, ts_rank_cd(tsv, q)::float8 as fts_rank${more(extra)}
    from ${table}, plainto_tsquery('english', ${text}) q
    where ${where} and tsv @@ q
    order by fts_rank desc, id limit ${limit}`;
}

/**
 * Vector candidates, best exact cosine first. The database only shortlists:
 * pgvector's HNSW index where enabled, otherwise Hamming distance between
 * random-hyperplane sign bits (any Postgres; see embeddingBits). Each
 * shortlisted row comes back with its exact cosine to the query
 * (similarityTo), so both paths rank the same rows identically.
 */
export async function vectorCandidates<E extends object = object>(
  exec: Exec,
  table: Searchable,
  where: SQL,
  vector: number[],
  limit: number,
  pgvector: boolean,
  extra?: SQL,
) {
  if (!vector.length) return [];
  return ranked(await rows<{ id: string; similarity: number } & E>(exec, vectorShortlist(table, where, vector, limit, pgvector, extra)));
}

/** Best exact cosine first, ties by id. */
const ranked = <R extends { id: string; similarity: number }>(found: R[]) => found.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : 1));

/** A vector as a float8[] literal: each number as JavaScript prints it, the shortest text that reads back as the same double. */
const float8s = (v: number[]): string => `{${v.join(',')}}`;

/**
 * The exact cosine of a row's embedding to `probe` (a float8[]; `probeNorm2` its squared norm), computed where the
 * row is: shipping every candidate's embedding had been a tenth of the worker's CPU. It multiplies only the row's
 * non-zero components (migration 0008 keeps them), in element order, and sums in float8 as `cosine`
 * (domain/metrics) does, so it is the same double that function gives; the dense sum over every component had
 * been most of a recall's database time. The two arrays are unnested side by side in the select list (in step, in
 * order): as a FROM function their rows were first copied to a tuplestore per candidate, twice the time (measured on a
 * 10-member board: 13.7 against 7.1 ms). `+ 0` turns a sum that is -0 into 0, as cosine's sum from 0 is.
 */
const similarityTo = (probe: SQL, probeNorm2: SQL) =>
  sql`(select case when t.embedding_norm2 > 0 and ${probeNorm2} > 0
      then (sum((${probe})[i + 1] * v) + 0) / sqrt(${probeNorm2} * t.embedding_norm2) else 0 end
    from (select unnest(t.embedding_at) as i, unnest(t.embedding_nonzero) as v) u)::float8 as similarity`;

/** Σ x² in element order, from 0: the double Postgres's sum over the same float8[] gives. */
export const norm2 = (v: number[]): number => v.reduce((s, x) => s + x * x, 0);

/**
 * The query of vectorCandidates (exported so tests and the bench can EXPLAIN exactly what runs). With `probe`, the
 * probe is each row's own (`p.bits`, `p.vec`, `p.emb`, `p.norm2`: see eachQuery); `vector` then gives the dimension and bit
 * length every probe shares.
 */
export function vectorShortlist(
  table: Searchable,
  where: SQL,
  vector: number[],
  limit: number,
  pgvector: boolean,
  extra?: SQL,
  probe?: { bits: SQL; vec: SQL; emb: SQL; norm2: SQL },
): SQL {
  const dim = vector.length;
  const similarity = similarityTo(probe?.emb ?? sql`${float8s(vector)}::float8[]`, probe?.norm2 ?? sql`${norm2(vector)}::float8`);
  return pgvector
    ? // Nothing but the distance in ORDER BY (no tie-break), or the planner cannot use the HNSW index.
      sql`select id, ${similarity}${more(extra)} from ${table} t
          where ${where} and embedding_dim = ${dim}
          order by embedding_vec <=> ${probe?.vec ?? toPgVector(vector)}::vector(${sql.raw(String(dim))}) limit ${limit}`
    : hammingShortlist(table, where, vector, limit, similarity, extra, probe?.bits);
}

function hammingShortlist(table: Searchable, where: SQL, vector: number[], limit: number, similarity: SQL, extra?: SQL, probeBits?: SQL): SQL {
  const bits = embeddingBits(vector);
  const probe = probeBits ?? sql`${bits}`;
  // Only id and bits in the scan, so a covering index can answer it; the exact cosine is computed for the shortlist.
  // Rows whose bits have another length (another encoding) are skipped, and the CASE keeps the XOR, which
  // fails on unequal lengths, from running on them whatever order Postgres evaluates the conditions in.
  return sql`with c as (
      select id, case when length(embedding_bits) = ${bits.length} then bit_count(embedding_bits # ${probe}::varbit) end as d
      from ${table}
      where ${where} and embedding_dim = ${vector.length} and length(embedding_bits) = ${bits.length}
      order by d, id limit ${limit})
    select t.id, ${similarity}${more(extra)} from c join ${table} t on t.id = c.id`;
}

/** One probe of a multi-query search: its index in the caller's list, and what its shortlists read (eachQuery). */
export interface Probe {
  i: number;
  persona: string;
  /** keyTerms of the query's text; '' leaves the probe out of the text shortlist. */
  terms: string;
  vector: number[];
}

/**
 * The probes of a multi-query search as rows `p(i, persona, terms, bits, vec, emb, norm2)`. The LIMIT is what the
 * planner estimates them by (a function's rows are estimated at 100): at 100 a board's text search was costed past
 * jit_above_cost, and compiling it took 12 ms of a 26 ms statement.
 */
const probeRows = (probes: Probe[], pgvector: boolean): SQL => {
  const json = JSON.stringify(
    probes.map((p) => ({
      i: p.i, persona: p.persona, terms: p.terms,
      ...(p.vector.length && { emb: p.vector, norm2: norm2(p.vector), ...(pgvector ? { vec: toPgVector(p.vector) } : { bits: embeddingBits(p.vector) }) }),
    })),
  );
  return sql`(select * from jsonb_to_recordset(${json}::jsonb) as p(i int, persona text, terms text, bits varbit, vec text, emb float8[], norm2 float8)
      limit ${sql.raw(String(probes.length))})`;
};

/**
 * Several searches in one statement: a LATERAL subquery per probe (its own limit and index path), whose `where` and
 * shortlist name the probe's columns (`p.persona`, `p.bits`, `p.vec`, `p.emb`, `p.norm2`). Each row carries its
 * probe's `i`. Every probe must share the vector's dimension.
 */
export const eachQuery = (probes: Probe[], shortlist: SQL, pgvector: boolean): SQL =>
  sql`select p.i, c.* from ${probeRows(probes, pgvector)} p cross join lateral (${shortlist}) c`;

/**
 * The full-text search of several probes of expert memory, best first within each (`limit` each). Probes that share
 * their terms (a board's members, who all recall with the session's statement) share one match: `where(persona)`
 * is given `any(d.personas)`, the personas of such a group. Matched once per probe, a 10-member board repeated the
 * same full-text index lookup ten times (19 ms against 1.3 ms).
 */
export function textEachQuery(table: typeof expertMemories, where: (persona: SQL) => SQL, probes: Probe[], limit: number, extra?: SQL): SQL {
  // `h` is materialised so that the join to each probe is not pushed into the search, which would make it per probe again.
  return sql`with p as materialized ${probeRows(probes, false)},
    h as materialized (
      select d.terms, h.* from (select terms, array_agg(persona) as personas from p group by terms) d
      cross join lateral (
        select id, persona as of_persona, ts_rank_cd(tsv, q)::float8 as fts_rank${more(extra)}
        from ${table}, plainto_tsquery('english', d.terms) q
        where ${where(sql`any(d.personas)`)} and tsv @@ q) h)
    select * from (
      select p.i, h.*, row_number() over (partition by p.i order by h.fts_rank desc, h.id) as n
      from h join p on p.terms = h.terms and p.persona = h.of_persona) x
    where x.n <= ${limit}
    order by x.i, x.n`;
}

/** Text candidates of several probes (see textEachQuery). */
export async function textCandidatesEach<E extends object = object>(exec: Exec, table: typeof expertMemories, where: (persona: SQL) => SQL, probes: Probe[], limit: number, extra?: SQL) {
  const live = probes.filter((p) => p.terms);
  if (!live.length) return [];
  return rows<{ i: number; id: string; fts_rank: number } & E>(exec, textEachQuery(table, where, live, limit, extra));
}

/** Vector candidates of several probes (see eachQuery), each re-ranked on the exact cosine to its own vector. */
export async function vectorCandidatesEach<E extends object = object>(exec: Exec, table: Searchable, where: SQL, probes: Probe[], limit: number, pgvector: boolean, extra?: SQL) {
  const live = probes.filter((p) => p.vector.length);
  if (!live.length) return [];
  const shortlist = vectorShortlist(table, where, live[0]!.vector, limit, pgvector, extra, { bits: sql`p.bits`, vec: sql`p.vec`, emb: sql`p.emb`, norm2: sql`p.norm2` });
  const found = await rows<{ i: number; id: string; similarity: number } & E>(exec, eachQuery(live, shortlist, pgvector));
  return live.flatMap((p) => ranked(found.filter((r) => r.i === p.i)));
}

/**
 * Decodes array_send(real[]) (header: ndim, has-nulls, element type, then
 * size and lower bound per dimension; then length + big-endian float4 per
 * element): the stored floats exactly, and cheaper than parsing their text.
 */
export function float4Array(buf: Uint8Array): number[] {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (view.getInt32(0) === 0) return [];
  const n = view.getInt32(12);
  const out = new Array<number>(n);
  for (let i = 0, off = 20; i < n; i++, off += 8) out[i] = view.getInt32(off) === 4 ? view.getFloat32(off + 4) : 0;
  return out;
}

export interface Fused {
  id: string;
  rrf: number;
  ftsRank: number | null;
  vectorSimilarity: number | null;
}

/** Reciprocal rank fusion: Σ 1/(k + rank) over the lists a row appears in (rank from 1). */
export function fuse(text: { id: string; fts_rank: number }[], vector: { id: string; similarity: number }[], k = 60): Fused[] {
  const out = new Map<string, Fused>();
  const get = (id: string) => out.get(id) ?? out.set(id, { id, rrf: 0, ftsRank: null, vectorSimilarity: null }).get(id)!;
  text.forEach((c, i) => {
    const f = get(c.id);
    f.rrf += 1 / (k + i + 1);
    f.ftsRank = c.fts_rank;
  });
  vector.forEach((c, i) => {
    const f = get(c.id);
    f.rrf += 1 / (k + i + 1);
    f.vectorSimilarity = c.similarity;
  });
  return [...out.values()];
}

/** 0.5^(age/halfLife): a memory half as relevant every `halfLifeDays`; future dates count as new. */
export function recency(createdAt: Date, now: Date, halfLifeDays: number): number {
  const ageDays = Math.max(0, now.getTime() - createdAt.getTime()) / 86_400_000;
  return 0.5 ** (ageDays / halfLifeDays);
}

/**
 * Whether reads take the HNSW path, and with which scan settings. The index
 * is global (all tenants), so filters apply after it: pgvector ≥ 0.8's
 * iterative scan keeps reading until enough rows pass the tenant filter.
 */
export class VectorPath {
  private settings: Promise<SQL> | null = null;

  constructor(readonly on: boolean) {}

  /**
   * Runs `fn` on one connection, inside a transaction (which carries the HNSW path's settings: SET LOCAL needs one),
   * its statements one after another. Side by side on pooled connections, a recall's last statement (the fetch of the
   * rows it returns) queued behind every other recall's first ones: when a worker's sessions all recalled at once,
   * each recall finished with the last of them (measured: 200 boards at once, the first done within 4% of the last).
   */
  run<T>(db: Exec, fn: (exec: Exec) => Promise<T>): Promise<T> {
    return db.transaction(async (tx) => {
      if (this.on) await tx.execute(await this.settingsFor(tx));
      return fn(tx);
    });
  }

  private settingsFor(exec: Exec): Promise<SQL> {
    this.settings ??= rows<{ v: string }>(exec, sql`select extversion as v from pg_extension where extname = 'vector'`).then(([r]) => {
      const [major = 0, minor = 0] = (r?.v ?? '0.0').split('.').map(Number);
      const iterative = major > 0 || minor >= 8;
      return iterative
        ? sql`select set_config('hnsw.ef_search', '100', true), set_config('hnsw.iterative_scan', 'relaxed_order', true)`
        : sql`select set_config('hnsw.ef_search', '400', true)`;
    });
    this.settings.catch(() => (this.settings = null));
    return this.settings;
  }
}
