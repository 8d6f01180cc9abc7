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
