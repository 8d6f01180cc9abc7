import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/bo1.mjs', import.meta.url));

export interface CliRun {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code; rejects if the process outlives `timeoutMs`. */
  exit: Promise<number | null>;
  /** Resolves once stdout matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

/** Starts `node bin/bo1.mjs …` as a user would (stdout and stdin are pipes, not a terminal), from another working directory. */
export function bo1(args: string[], env: Record<string, string> = {}, timeoutMs = 90_000): CliRun {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: 'pipe',
  });
  let out = '';
  let err = '';
  const watchers = new Set<() => void>();
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    for (const w of watchers) w();
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`bo1 ${args.join(' ')} did not exit within ${timeoutMs} ms\n--- stdout\n${out.slice(-3000)}\n--- stderr\n${err.slice(-3000)}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
  const waitFor = (pattern: RegExp, ms = 60_000) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(out)) return;
        watchers.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        watchers.delete(check);
        reject(new Error(`stdout never matched ${pattern}\n--- stdout\n${out.slice(-3000)}\n--- stderr\n${err.slice(-3000)}`));
      }, ms);
      watchers.add(check);
      check();
    });
  return { child, stdout: () => out, stderr: () => err, exit, waitFor };
}

/** Runs to the end, feeding `input` to stdin (then closing it). */
export async function bo1Run(args: string[], env: Record<string, string> = {}, input = '') {
  const run = bo1(args, env);
  run.child.stdin.end(input);
  const code = await run.exit;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

export const ANSI = /\x1b\[/;
