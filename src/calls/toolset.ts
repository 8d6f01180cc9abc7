import type { z } from 'zod';
import type { AnyCall } from './call';
import { CATALOGUE } from './index';

/**
 * The tool set a call is sent with. A provider's prompt cache keys on the
 * tools first, then the system blocks: calls with different tools share
 * nothing, however alike their records. So every call that reads the board
 * record sends the same set, in catalogue order, and names its own tool as
 * the forced choice. Calls outside a set send their own tool alone.
 */
export function toolsetOf(call: AnyCall): { purpose: string; schema: z.ZodType }[] | undefined {
  if (!call.toolset) return undefined;
  return (SETS[call.toolset] ??= Object.values(CATALOGUE)
    .filter((c) => c.toolset === call.toolset)
    .map((c) => ({ purpose: c.purpose, schema: c.tool ?? (c.output as () => z.ZodType)() })));
}

const SETS: Partial<Record<NonNullable<AnyCall['toolset']>, { purpose: string; schema: z.ZodType }[]>> = {};
