import { sql, type SQLWrapper } from 'drizzle-orm';
import { z } from 'zod';
import { AppError } from '../domain/errors';

/**
 * A keyset cursor: the (timestamp, uuid) of the last row of a page. Decoding
 * is strict — an ISO timestamp Postgres accepts (zod checks the calendar,
 * leap days included; year 0 does not exist in Postgres) and a UUID — so a
 * crafted cursor is a 400, never a failed cast in the database.
 */
const cursorSchema = z.tuple([
  z.iso.datetime().refine((ts) => !ts.startsWith('0000-')),
  z.uuid(),
]);

export const encodeCursor = (ts: string, id: string): string => Buffer.from(JSON.stringify([ts, id])).toString('base64url');

export function decodeCursor(cursor: string): [string, string] {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  } catch {
    raw = null;
  }
  const parsed = cursorSchema.safeParse(raw);
  if (!parsed.success) throw new AppError('invalid-cursor', 'cursor is not one this API issued');
  return parsed.data;
}

/** `created_at` to the microsecond: a cursor cut at milliseconds would skip rows sharing that millisecond. */
export const exactTs = (col: SQLWrapper) =>
  sql<string>`to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Keyset condition for newest-first pages ordered by (created_at, id), from a cursor made of `exactTs`. */
export const before = (createdAt: SQLWrapper, id: SQLWrapper, cursor: string) => {
  const [ts, last] = decodeCursor(cursor);
  return sql`(${createdAt}, ${id}) < (${ts}::timestamptz, ${last}::uuid)`;
};
