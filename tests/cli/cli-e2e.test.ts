import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/child';
import { createSession, getJson, snapshot, startStack, waitForStatus, type Stack } from '../support/stack';
import { ANSI, bo1Run } from './cli-process';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ SSE_RETRY_MS: '100' });
});
afterAll(async () => stack?.stop());

const env = () => ({ BO1_URL: stack.url });
const problem = 'Should I pivot my project management tool to serve only law firms, or stay horizontal?';
const context = '$12K MRR, 100 customers; law firms pay $200/mo vs $80 average; churn is 30%.';
const sessionId = (stdout: string) => /^Session ([0-9a-f-]{36}) \(/m.exec(stdout)![1]!;
const count = (text: string, part: string) => text.split(part).length - 1;

describe('bo1 against a running service', () => {
  it('ask --auto renders the whole session (sections, speakers, rounds, votes, recommendation), plain when piped, exit 0', async () => {
    const r = await bo1Run(['ask', '--auto', '--seed', 'cli-auto', ...problem.split(' '), '--context', context], env());
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = r.stdout;
    const id = sessionId(out);
    expect(out).toMatch(/^Session [0-9a-f-]{36} \(auto\)\n/);
    expect(out).not.toMatch(ANSI);
    expect(out).toContain('=== PROBLEM ===');
    expect(out).toContain('=== PROBLEM STATEMENT ===');
    expect(out).toContain('[FACILITATOR] ');
    expect(out).toMatch(/=== SUB-PROBLEM 1 OF \d+: /);
    expect(out).toMatch(/^Round 1\/\d+ \(opening\) · Sub-problem 1 of \d+$/m);
    expect(out).toMatch(/\] votes [A-D] \(confidence 0\.\d\d\)/);
    expect(out).toContain('=== RECOMMENDATION ===');
    expect(out).toMatch(/\nSession completed · cost \$\d+\.\d{4} · \d+ model calls\n$/);

    // Every contribution, by its speaker, exactly once.
    const log = await getJson(`${stack.url}/v1/sessions/${id}/events?limit=1000`);
    const contributions = log.items.filter((e: { type: string }) => e.type === 'contribution.completed');
    expect(contributions.length).toBeGreaterThan(3);
    for (const c of contributions) expect(count(out, `[${c.data.name}] ${c.data.text}`), `seq ${c.seq}`).toBe(1);
    const s = await snapshot(stack.url, id);
    expect(s.status).toBe('completed');
    expect(s.mode).toBe('auto');
    // The session's own spend, as its completion event states it (memory jobs after the end are not part of it).
    const completed = log.items.find((e: { type: string }) => e.type === 'session.completed');
    expect(out).toContain(`cost $${completed.data.usage.costUsd.toFixed(4)}`);
  });

  it('ask reads the problem from a file or stdin, and the context from a file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bo1-cli-'));
    await writeFile(join(dir, 'problem.txt'), `${problem}\n`);
    await writeFile(join(dir, 'context.txt'), context);
    const fromFile = await bo1Run(['ask', '--auto', '--file', join(dir, 'problem.txt'), '--context-file', join(dir, 'context.txt'), '--seed', 'cli-file'], env());
    expect(fromFile.code).toBe(0);
    const a = await snapshot(stack.url, sessionId(fromFile.stdout));
    expect([a.problem, a.context]).toEqual([problem, context]);

    const fromStdin = await bo1Run(['ask', '-', '--auto', '--context', context, '--budget', '5', '--seed', 'cli-stdin'], env(), `${problem}\n`);
    expect(fromStdin.code).toBe(0);
    expect((await snapshot(stack.url, sessionId(fromStdin.stdout))).problem).toBe(problem);
  });

  it('attach replays a finished session; --after renders only what follows; --color forces colour', async () => {
    const id = await createSession(stack.url, { problem, context, seed: 'cli-attach' });
    await waitForStatus(stack.url, id, ['completed']);
    const full = await bo1Run(['attach', id], env());
    expect(full.code).toBe(0);
    expect(full.stdout).toContain('=== PROBLEM STATEMENT ===');
    expect(full.stdout).toContain('=== RECOMMENDATION ===');

    const log = await getJson(`${stack.url}/v1/sessions/${id}/events?limit=1000`);
    const before = log.items.find((e: { type: string }) => e.type === 'recommendation.completed').seq - 1;
    const tail = await bo1Run(['attach', id, '--after', String(before), '--color'], env());
    expect(tail.code).toBe(0);
    expect(tail.stdout).toMatch(ANSI);
    expect(tail.stdout).not.toContain('PROBLEM STATEMENT');
    expect(tail.stdout).toContain('=== RECOMMENDATION ===');
    expect(tail.stdout).toMatch(/Session completed/);
  });

  it('transcript prints the Markdown transcript (or JSON)', async () => {
    const id = await createSession(stack.url, { problem, context, seed: 'cli-transcript' });
    await waitForStatus(stack.url, id, ['completed']);
    const md = await bo1Run(['transcript', id], env());
    expect(md.code).toBe(0);
    expect(md.stdout).toBe(await (await fetch(`${stack.url}/v1/sessions/${id}/transcript`)).text());
    expect(md.stdout).toMatch(/## === RECOMMENDATION ===/);
    expect(md.stdout).toMatch(/\*\*\[FACILITATOR\]\*\*/);
    const json = await bo1Run(['transcript', id, '--format', 'json', '--verbosity', 'concise'], env());
    expect(JSON.parse(json.stdout)).toMatchObject({ id, verbosity: 'concise' });
  });

  it('cancel stops a session (exit 0); a second cancel is the API\'s one-line problem (exit 1); attach then ends with exit 1', async () => {
    // An interactive session waits at its first checkpoint: still running when we cancel it.
    const id = await createSession(stack.url, { problem, context, mode: 'interactive', seed: 'cli-cancel' });
    await waitForStatus(stack.url, id, ['awaiting_input']);
    const first = await bo1Run(['cancel', id], env());
    expect(first).toMatchObject({ code: 0, stdout: `Session ${id} cancelled\n` });
    const again = await bo1Run(['cancel', id], env());
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`bo1: 409 Session already ended: session ${id} is already cancelled\n`);
    const attached = await bo1Run(['attach', id], env());
    expect(attached.code).toBe(1);
    expect(attached.stdout).toContain('Cancelled: cancelled by the client');
    expect(attached.stdout).toMatch(/Session cancelled/);
  });

  it('exit codes: 2 for usage errors, 1 for an API refusal, 3 when the API cannot be reached', async () => {
    const usage = await bo1Run(['ask', 'x', '--frobnicate'], env());
    expect(usage.code).toBe(2);
    expect(usage.stderr).toBe('bo1: unknown option --frobnicate for "ask"\nRun "bo1 ask --help" for usage.\n');
    const stdinNeedsAuto = await bo1Run(['ask', '-'], env(), 'a problem');
    expect(stdinNeedsAuto.code).toBe(2);
    expect(stdinNeedsAuto.stderr).toMatch(/add --auto/);

    const missing = await bo1Run(['attach', '00000000-0000-4000-8000-000000000000'], env());
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('bo1: 404 Not Found: session 00000000-0000-4000-8000-000000000000 does not exist\n');
    const invalid = await bo1Run(['ask', '--auto', '--seed', 'x'.repeat(200), 'Should I?'], env());
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^bo1: 400 Invalid request: body\.seed: .+\n$/);

    const help = await bo1Run(['ask', '--help'], env());
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: bo1 ask/);

    const port = await freePort(); // free, so nothing listens there
    const unreachable = await bo1Run(['transcript', '00000000-0000-4000-8000-000000000000'], { BO1_URL: `http://127.0.0.1:${port}`, BO1_RETRY_FOR_MS: '300' });
    expect(unreachable.code).toBe(3);
    // Each retry is announced (why, when, for how long at most), then the one line that gives up.
    const lines = unreachable.stderr.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines.slice(0, -1)) {
      expect(line).toMatch(new RegExp(`^\\(cannot reach http://127\\.0\\.0\\.1:${port}: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}; retrying in \\d+ ms, for up to 300 ms\\)$`));
    }
    expect(lines.at(-1)).toBe(`bo1: cannot reach http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`);
  });
});
