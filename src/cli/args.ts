/** Command-line parsing: pure, so every usage rule is unit-tested without a process. */

import { parseArgs as nodeParseArgs, type ParseArgsConfig } from 'node:util';
import { CHECKPOINT_KINDS } from '../domain/checkpoints';

export const DEFAULT_URL = 'http://127.0.0.1:3000';

export class UsageError extends Error {
  constructor(
    message: string,
    readonly command: string | null = null,
  ) {
    super(message);
  }
}

export interface GlobalOptions {
  url: string;
  key: string | undefined;
  /** undefined: decide from the terminal and NO_COLOR. */
  color: boolean | undefined;
  trace: boolean;
  /** How long to keep retrying an unreachable API before giving up (exit 3). */
  retryForMs: number;
}

export type Command =
  | { kind: 'help'; topic: string }
  | {
      kind: 'ask';
      problem: string[];
      file?: string;
      context?: string;
      contextFile?: string;
      auto: boolean;
      budget?: number;
      seed?: string;
      noCheckpoint: string[];
    }
  | { kind: 'attach'; id: string; after: number; auto: boolean }
  | { kind: 'transcript'; id: string; format: 'markdown' | 'json'; verbosity: 'concise' | 'standard' | 'detailed' }
  | { kind: 'cancel'; id: string };

type FlagType = 'string' | 'boolean' | 'list';
const GLOBAL_FLAGS: Record<string, FlagType> = { url: 'string', key: 'string', color: 'boolean', 'no-color': 'boolean', trace: 'boolean', help: 'boolean' };
const COMMAND_FLAGS: Record<string, Record<string, FlagType>> = {
  ask: { context: 'string', 'context-file': 'string', file: 'string', auto: 'boolean', budget: 'string', seed: 'string', 'no-checkpoint': 'list' },
  attach: { after: 'string', auto: 'boolean' },
  transcript: { format: 'string', verbosity: 'string' },
  cancel: {},
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// Every flag of every command, so node's parser knows which take a value; which flag is allowed where is checked on its tokens.
const ALL_FLAGS: ParseArgsConfig['options'] = Object.fromEntries(
  [GLOBAL_FLAGS, ...Object.values(COMMAND_FLAGS)].flatMap((flags) =>
    Object.entries(flags).map(([name, type]) => [name, { type: type === 'boolean' ? ('boolean' as const) : ('string' as const), ...(name === 'help' && { short: 'h' }) }]),
  ),
);

/**
 * Tokenises with node:util's parseArgs, then applies bo1's rules to the
 * tokens: the first positional is the command, command flags only after it,
 * a flag's value inline or next, `--` ends the options.
 */
function tokenise(argv: string[]): { command: string | null; positionals: string[]; flags: Record<string, string | boolean | string[]> } {
  let tokens;
  try {
    ({ tokens } = nodeParseArgs({ args: argv, options: ALL_FLAGS, strict: false, allowPositionals: true, tokens: true }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  let command: string | null = null;
  let literal = false;
  const positionals: string[] = [];
  const flags: Record<string, string | boolean | string[]> = {};
  for (const token of tokens) {
    if (token.kind === 'option-terminator') {
      literal = true;
    } else if (token.kind === 'positional') {
      if (command === null && !literal) {
        if (!(token.value in COMMAND_FLAGS)) throw new UsageError(`unknown command "${token.value}"`);
        command = token.value;
      } else positionals.push(token.value);
    } else {
      const { name, rawName } = token;
      const type = GLOBAL_FLAGS[name] ?? (command ? COMMAND_FLAGS[command]![name] : undefined);
      if (!type) {
        throw new UsageError(`unknown option ${rawName}${command ? ` for "${command}"` : ''}`, command);
      }
      if (type === 'boolean') {
        if (token.value !== undefined) throw new UsageError(`--${name} takes no value`, command);
        flags[name] = true;
      } else if (token.value === undefined) {
        throw new UsageError(`--${name} needs a value`, command);
      } else if (type === 'list') {
        flags[name] = [...((flags[name] as string[] | undefined) ?? []), ...token.value.split(',').map((v) => v.trim()).filter(Boolean)];
      } else flags[name] = token.value;
    }
  }
  return { command, positionals, flags };
}

export function parseArgs(argv: string[], env: Record<string, string | undefined> = {}): { command: Command; global: GlobalOptions } {
  const { command, positionals, flags } = tokenise(argv);

  const str = (name: string) => flags[name] as string | undefined;
  const bool = (name: string) => flags[name] === true;
  if (bool('color') && bool('no-color')) throw new UsageError('--color and --no-color contradict each other', command);
  const url = str('url') ?? (env.BO1_URL || DEFAULT_URL);
  let parsedUrl: URL | null = null;
  try {
    parsedUrl = new URL(url);
  } catch {
    // reported below
  }
  if (!parsedUrl || !/^https?:$/.test(parsedUrl.protocol)) throw new UsageError(`--url / BO1_URL must be an http(s) URL, got "${url}"`, command);
  const global: GlobalOptions = {
    url,
    key: str('key') ?? (env.BO1_API_KEY || undefined),
    color: bool('color') ? true : bool('no-color') ? false : undefined,
    trace: bool('trace'),
    retryForMs: 60_000,
  };
  if (env.BO1_RETRY_FOR_MS) {
    if (!/^\d+$/.test(env.BO1_RETRY_FOR_MS)) throw new UsageError(`BO1_RETRY_FOR_MS must be a number of milliseconds, got "${env.BO1_RETRY_FOR_MS}"`, command);
    global.retryForMs = Number(env.BO1_RETRY_FOR_MS);
  }
  if (bool('help')) return { command: { kind: 'help', topic: command ?? 'main' }, global };
  if (command === null) throw new UsageError('a command is required: ask, attach, transcript or cancel');

  const id = () => {
    const [value, ...extra] = positionals;
    if (!value) throw new UsageError('a session id is required', command);
    if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`, command);
    if (!UUID.test(value)) throw new UsageError(`"${value}" is not a session id (a UUID)`, command);
    return value;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const value = str(name) ?? fallback;
    if (!allowed.includes(value as T)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`, command);
    return value as T;
  };

  switch (command) {
    case 'ask': {
      const auto = bool('auto');
      const noCheckpoint = (flags['no-checkpoint'] as string[] | undefined) ?? [];
      for (const kind of noCheckpoint) {
        if (!(CHECKPOINT_KINDS as readonly string[]).includes(kind)) throw new UsageError(`unknown checkpoint kind "${kind}" (one of ${CHECKPOINT_KINDS.join(', ')})`, command);
      }
      if (auto && noCheckpoint.length) throw new UsageError('--no-checkpoint applies to interactive sessions; --auto has no checkpoints', command);
      if (positionals.length && str('file') !== undefined) throw new UsageError('give the problem as words or with --file, not both', command);
      if (!positionals.length && str('file') === undefined) throw new UsageError('what should the board decide? Give the problem as words, with --file FILE, or "-" to read stdin', command);
      if (str('context') !== undefined && str('context-file') !== undefined) throw new UsageError('use --context or --context-file, not both', command);
      const fromStdin = (positionals.length === 1 && positionals[0] === '-') || str('file') === '-' || str('context-file') === '-';
      if (fromStdin && !auto) {
        throw new UsageError('reading from stdin ("-") uses it up, so there is nothing left to answer the checkpoints with: add --auto', command);
      }
      const budgetText = str('budget');
      const budget = budgetText === undefined ? undefined : Number(budgetText);
      if (budget !== undefined && !(Number.isFinite(budget) && budget > 0)) throw new UsageError('--budget must be a positive number of US dollars', command);
      return {
        command: {
          kind: 'ask',
          problem: positionals,
          auto,
          noCheckpoint,
          ...(str('file') !== undefined && { file: str('file')! }),
          ...(str('context') !== undefined && { context: str('context')! }),
          ...(str('context-file') !== undefined && { contextFile: str('context-file')! }),
          ...(budget !== undefined && { budget }),
          ...(str('seed') !== undefined && { seed: str('seed')! }),
        },
        global,
      };
    }
    case 'attach': {
      const afterText = str('after') ?? '0';
      if (!/^\d+$/.test(afterText)) throw new UsageError('--after must be an event seq (a non-negative integer)', command);
      return { command: { kind: 'attach', id: id(), after: Number(afterText), auto: bool('auto') }, global };
    }
    case 'transcript':
      return {
        command: {
          kind: 'transcript',
          id: id(),
          format: oneOf('format', ['markdown', 'json'] as const, 'markdown'),
          verbosity: oneOf('verbosity', ['concise', 'standard', 'detailed'] as const, 'standard'),
        },
        global,
      };
    default:
      return { command: { kind: 'cancel', id: id() }, global };
  }
}
