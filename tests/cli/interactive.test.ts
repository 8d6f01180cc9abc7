import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolve } from '../support/checkpoints';
import { createSession, getJson, snapshot, startStack, waitForStatus, type Stack } from '../support/stack';
import { bo1, bo1Run, type CliRun } from './cli-process';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ SSE_RETRY_MS: '100' });
});
afterAll(async () => stack?.stop());

const env = () => ({ BO1_URL: stack.url });
const problem = 'Should we pivot our B2B analytics startup to serve law firms, keep selling to mid-market retailers, or do both with separate teams?';
const sessionId = (stdout: string) => /^Session ([0-9a-f-]{36}) \(/m.exec(stdout)![1]!;
const events = async (id: string) => (await getJson(`${stack.url}/v1/sessions/${id}/events?limit=1000`)).items as { seq: number; type: string; data: any }[];

const PROMPTS: [string, RegExp][] = [
  ['clarification', /Your answer \(Enter keeps the assumption\) > $/],
  ['statement', /Enter to confirm, or type a new statement > $/],
  ['round_end', /\[c\]ontinue, \[v\]ote now, \[i\]ntervene, \[f\]inal > $/],
  ['next_sub_problem', /\[c\]ontinue, \[f\]inal > $/],
];

/**
 * Plays the person at a piped stdin: whenever the client's output stops at a
 * prompt, writes the next scripted answer for that kind of prompt (Enter when
 * none is left), or closes stdin once `stopWhen` holds.
 */
function converse(run: CliRun, script: Record<string, string[]>, stopWhen: (out: string) => boolean): void {
  let seen = 0;
  run.child.stdout.on('data', () => {
    const out = run.stdout();
    if (out.length === seen || !out.endsWith('> ') || run.child.stdin.writableEnded) return;
    seen = out.length;
    if (stopWhen(out)) {
      run.child.stdin.end();
      return;
    }
    let kind = PROMPTS.find(([, re]) => re.test(out))?.[0];
    // Sub-problems and board share the "> " command prompt: the latest command list says which it is.
    kind ??= out.lastIndexOf('remove <id>') > out.lastIndexOf('remove <code>') ? 'sub_problems' : 'board';
    run.child.stdin.write(`${script[kind]?.shift() ?? ''}\n`);
  });
}

describe('bo1 in an interactive session', () => {
  it('answers every kind of checkpoint at its prompt, and continues at the rest once input ends', async () => {
    const run = bo1(['ask', '--seed', 'cli-interactive', '--context', 'Two law firms asked us for a pilot.', ...problem.split(' ')], env());
    converse(
      run,
      {
        clarification: ['About $40,000 a month of burn, and 14 months of runway.'],
        statement: ['Decide whether to run a paid law-firm pilot while keeping the retail business, within 14 months of runway.'],
        sub_problems: ['add Runway reserve: Decide how many months of runway to hold back whatever we choose', ''],
        // Every panel must keep 2-5 experts: make room before asking for one more (this seed's growth strategist sits on every panel).
        board: ['remove growth_strategist', 'want legal', ''],
        round_end: ['c', 'i Please focus on cash runway', 'v'],
      },
      // After the vote, stdin ends: later checkpoints continue on their own.
      (out) => out.includes('(checkpoint round_end: skip to vote)'),
    );
    expect(await run.exit).toBe(0);
    const out = run.stdout();
    const id = sessionId(out);
    expect(out).toMatch(/^Session [0-9a-f-]{36} \(interactive\)\n/);

    // The prompts, each answer echoed after it (stdin is a pipe), and what was decided.
    expect(out).toMatch(/\? The board has \d+ clarifying question/);
    expect(out).toContain('Your answer (Enter keeps the assumption) > About $40,000 a month of burn, and 14 months of runway.');
    expect(out).toContain('Enter to confirm, or type a new statement > Decide whether to run a paid law-firm pilot');
    expect(out).toContain('[FACILITATOR] Decide whether to run a paid law-firm pilot while keeping the retail business');
    expect(out).toMatch(/\n> add Runway reserve: Decide how many months/);
    expect(out).toMatch(/\d\. \[new\] Runway reserve — Decide how many months of runway to hold back whatever we choose/);
    expect(out).toContain('(checkpoint sub_problems: edit)');
    expect(out).toContain('Changes: -growth_strategist, want "legal"');
    expect(out).toContain('(checkpoint board: edit)');
    expect(out).toContain('[c]ontinue, [v]ote now, [i]ntervene, [f]inal > i Please focus on cash runway');
    expect(out).toContain('(checkpoint round_end: intervene: "Please focus on cash runway")');
    // The board takes the intervention up in the next round.
    expect(out).toMatch(/\(checkpoint round_end: intervene[^\n]*\n(?:.*\n)*?\[[^\]\n]+\] [^\n]*Please focus on cash runway/);
    expect(out).toContain('(checkpoint round_end: skip to vote)');
    expect(out.match(/\(input ended: continuing at this and every later checkpoint\)/g)).toHaveLength(1);
    expect(out).toContain('=== RECOMMENDATION ===');
    expect(out).toMatch(/Session completed · cost \$/);
    expect(run.stderr()).toBe('');

    // The log agrees: every checkpoint answered once, by this client.
    const log = await events(id);
    const requested = log.filter((e) => e.type === 'checkpoint.requested');
    const resolved = log.filter((e) => e.type === 'checkpoint.resolved');
    expect(resolved.map((e) => e.data.checkpointId)).toEqual(requested.map((e) => e.data.checkpointId));
    expect(new Set(resolved.map((e) => e.data.by))).toEqual(new Set(['client']));
    expect(resolved.find((e) => e.data.kind === 'clarification')!.data.action).toBe('answer');
    expect(resolved.find((e) => e.data.kind === 'statement')!.data.action).toBe('edit');
    expect(resolved.find((e) => e.data.kind === 'sub_problems')!.data.subProblems.map((s: { title: string }) => s.title)).toContain('Runway reserve');
    expect(resolved.find((e) => e.data.kind === 'board')!.data).toMatchObject({ action: 'edit', board: { remove: ['growth_strategist'], add: ['legal_advisor'] } });
    expect(out).toMatch(/^Round 1\/\d+ \(opening\) · Sub-problem 1 of 3$/m);
    expect(resolved.filter((e) => e.data.kind === 'round_end').map((e) => e.data.action).slice(0, 3)).toEqual(['continue', 'intervene', 'skip_to_vote']);
  });

  it('takes a script of answers piped in advance, and continues as proposed after its end', async () => {
    const r = await bo1Run(
      ['ask', '--seed', 'cli-script', '--no-checkpoint', 'clarification,statement,sub_problems', '--no-checkpoint', 'board', ...problem.split(' ')],
      env(),
      'c\ni Please focus on cash runway\nv\n',
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('[c]ontinue, [v]ote now, [i]ntervene, [f]inal > c\n');
    expect(r.stdout).toContain('[c]ontinue, [v]ote now, [i]ntervene, [f]inal > i Please focus on cash runway\n');
    expect(r.stdout).toContain('(checkpoint round_end: intervene: "Please focus on cash runway")');
    expect(r.stdout.match(/\(input ended: continuing at this and every later checkpoint\)/g)).toHaveLength(1);
    expect(r.stdout).toContain('(no more input: continue)');
    expect(r.stdout).toMatch(/Session completed/);
    // --no-checkpoint turned the others off.
    const kinds = new Set((await events(sessionId(r.stdout))).filter((e) => e.type === 'checkpoint.requested').map((e) => e.data.kind));
    expect(kinds.has('round_end')).toBe(true);
    expect([...kinds].filter((k) => k !== 'round_end' && k !== 'next_sub_problem')).toEqual([]);
  });

  it('attach --auto continues at every checkpoint; a replay asks nothing, even with stdin open', async () => {
    const id = await createSession(stack.url, { problem, mode: 'interactive', seed: 'cli-attach-auto' });
    await waitForStatus(stack.url, id, ['awaiting_input']);
    const auto = await bo1Run(['attach', id, '--auto'], env());
    expect(auto.code).toBe(0);
    expect(auto.stdout).toContain('(auto: continue)');
    expect(auto.stdout).toMatch(/Session completed/);
    const log = await events(id);
    expect(log.filter((e) => e.type === 'checkpoint.resolved').every((e) => e.data.action === 'continue' && e.data.by === 'client')).toBe(true);

    // A finished session's checkpoints were all resolved: replaying it needs no input (stdin stays open).
    const replay = bo1(['attach', id], env());
    expect(await replay.exit).toBe(0);
    expect(replay.stdout()).not.toContain('input ended');
    expect(replay.stdout()).not.toMatch(/> $/m);
    expect(replay.stdout().match(/\(checkpoint \w+: continue\)/g)!.length).toBe(log.filter((e) => e.type === 'checkpoint.resolved').length);
    replay.child.stdin.end();
  });

  it('withdraws a prompt whose checkpoint is answered elsewhere, never answering it twice', async () => {
    const id = await createSession(stack.url, { problem, mode: 'interactive', seed: 'cli-elsewhere', checkpoints: { clarification: false } });
    const run = bo1(['attach', id], env());
    await run.waitFor(/Enter to confirm, or type a new statement > $/);
    const pending = (await snapshot(stack.url, id)).checkpoint;
    expect(pending.kind).toBe('statement');
    expect((await resolve(stack.url, id, pending.id, { action: 'continue' })).status).toBe(202);
    await run.waitFor(/\(this checkpoint was resolved elsewhere\)\n(?:.*\n)*\(checkpoint statement: continue\)/);
    // The next checkpoint is asked as usual; the end of input continues the rest.
    await run.waitFor(/> $/);
    run.child.stdin.end();
    expect(await run.exit).toBe(0);
    expect(run.stderr()).toBe('');
    const statementAnswers = (await events(id)).filter((e) => e.type === 'checkpoint.resolved' && e.data.kind === 'statement');
    expect(statementAnswers).toHaveLength(1);
  });

  it('asks nothing about a session that ended while it waited: on attach, and while a prompt is open', async () => {
    const cancel = (id: string) => fetch(`${stack.url}/v1/sessions/${id}/cancel`, { method: 'POST' });
    // Cancelled while awaiting input: its last checkpoint was never resolved, and never can be.
    const ended = await createSession(stack.url, { problem, mode: 'interactive', seed: 'cli-ended' });
    await waitForStatus(stack.url, ended, ['awaiting_input']);
    expect((await cancel(ended)).status).toBe(200);
    const replay = bo1(['attach', ended], env());
    expect(await replay.exit).toBe(1);
    expect(replay.stdout()).toContain('(the session ended before this was answered)');
    expect(replay.stdout()).not.toMatch(/> $/m);
    expect(replay.stdout()).toMatch(/Session cancelled/);
    expect(replay.stderr()).toBe('');
    replay.child.stdin.end();

    // Cancelled by someone else while the prompt waits: the prompt is withdrawn, nothing is sent.
    const live = await createSession(stack.url, { problem, mode: 'interactive', seed: 'cli-ended-live', checkpoints: { clarification: false } });
    const run = bo1(['attach', live], env());
    await run.waitFor(/Enter to confirm, or type a new statement > $/);
    expect((await cancel(live)).status).toBe(200);
    await run.waitFor(/\(the session ended: nothing to answer\)/);
    expect(await run.exit).toBe(1);
    expect(run.stderr()).toBe('');
    run.child.stdin.end();
    expect((await events(live)).filter((e) => e.type === 'checkpoint.resolved')).toHaveLength(0);
  });
});
