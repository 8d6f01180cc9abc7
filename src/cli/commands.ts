import { readFile } from 'node:fs/promises';
import { ApiClient, reason } from './api';
import { DEFAULT_BACKOFF } from './backoff';
import type { Command, GlobalOptions } from './args';
import { LineInput } from './input';
import { createStyle, wantColour } from './style';
import { summaryLine, watch, type WatchResult } from './watch';

/** The process edges a command uses; tests and main pass the real ones. */
export interface Io {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
  env: Record<string, string | undefined>;
  /** Called with the session id once there is one, so Ctrl-C can say how to come back. */
  onSession?: (id: string) => void;
}

type Run = Exclude<Command, { kind: 'help' }>;

const span = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`);
const exitCode = (r: WatchResult) => (r.status === 'completed' ? 0 : 1);

async function readText(path: string, stdin: NodeJS.ReadableStream): Promise<string> {
  if (path !== '-') return readFile(path, 'utf8');
  let text = '';
  for await (const chunk of stdin) text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
  return text;
}

/** Runs one command; returns the exit code. Errors (ApiError, ConnectionError, file errors) propagate to main. */
export async function runCommand(command: Run, global: GlobalOptions, io: Io): Promise<number> {
  const style = createStyle(wantColour(global.color, Boolean(io.stdout.isTTY), io.env));
  const backoff = { ...DEFAULT_BACKOFF, giveUpMs: global.retryForMs };
  const out = (text: string) => void io.stdout.write(text);
  const err = (text: string) => void io.stderr.write(text);
  // Said on stderr each time, so a user facing a silent terminal knows it is waiting on the API, and for how long at most.
  const onRetry = (_what: string, failure: unknown, waitMs: number) =>
    err(style.dim(`(cannot reach ${global.url}: ${reason(failure)}; retrying in ${waitMs} ms, for up to ${span(global.retryForMs)})\n`));
  const client = new ApiClient({ url: global.url, key: global.key, backoff, onRetry });
  const follow = async (id: string, after: number, interactive: boolean) => {
    io.onSession?.(id);
    const input = interactive ? new LineInput(io.stdin, io.stdout) : null;
    try {
      const result = await watch({ client, sessionId: id, after, style, out, err, input, trace: global.trace, backoff });
      out(`\n${summaryLine(result, style)}\n`);
      return exitCode(result);
    } finally {
      input?.close();
    }
  };

  switch (command.kind) {
    case 'ask': {
      const problem = command.file !== undefined ? await readText(command.file, io.stdin) : command.problem.length === 1 && command.problem[0] === '-' ? await readText('-', io.stdin) : command.problem.join(' ');
      const context = command.contextFile !== undefined ? await readText(command.contextFile, io.stdin) : command.context;
      const mode = command.auto ? 'auto' : 'interactive';
      const created = await client.createSession({
        problem: problem.trim(),
        ...(context !== undefined && { context: context.trim() }),
        mode,
        ...(command.seed !== undefined && { seed: command.seed }),
        ...(command.budget !== undefined && { budget_usd: command.budget }),
        ...(command.noCheckpoint.length && { checkpoints: Object.fromEntries(command.noCheckpoint.map((k) => [k, false])) }),
      });
      out(`Session ${created.id} (${mode})\n`);
      return follow(created.id, 0, !command.auto);
    }
    case 'attach': {
      const snapshot = await client.session(command.id);
      out(`Session ${snapshot.id} (${String(snapshot.mode ?? 'auto')}, ${snapshot.status})\n`);
      return follow(command.id, command.after, !command.auto);
    }
    case 'transcript':
      out(await client.transcript(command.id, command.format, command.verbosity));
      return 0;
    case 'cancel': {
      const r = await client.cancel(command.id);
      out(`Session ${r.id} ${r.status}\n`);
      return 0;
    }
  }
}
