import { describe, expect, it } from 'vitest';
import { Renderer } from '../../src/cli/render';
import { createStyle, wantColour } from '../../src/cli/style';
import { sessionLog } from './fixtures';

const ANSI = /\x1b\[/;

function render(colour: boolean, after = 0) {
  let out = '';
  const r = new Renderer((s) => (out += s), createStyle(colour), after);
  return { r, out: () => out };
}

describe('console renderer', () => {
  it('renders the spec conventions as plain text when colour is off', () => {
    const { r, out } = render(false);
    for (const e of sessionLog()) r.add(e);
    r.flush();
    const text = out();
    expect(text).not.toMatch(ANSI);
    expect(text).toContain('=== PROBLEM STATEMENT ===');
    expect(text).toContain('[FACILITATOR] Decide whether to pivot to law firms.');
    expect(text).toContain('=== SUB-PROBLEM 1 OF 2: MARKET ===');
    expect(text).toContain('Round 1/5 (opening) · Sub-problem 1 of 2');
    expect(text).toContain('Round 1/7 (opening) · Sub-problem 2 of 2');
    expect(text).toContain('[Maria Santos] Law firms pay more.');
    expect(text).toContain('[Maria Santos] votes A (confidence 0.80): Focus wins.');
    expect(text).toContain('=== RECOMMENDATION ===');
    // Live, the recommendation prints in full as it arrives: the Markdown's brief of it would only repeat it.
    expect(text).not.toContain('IN BRIEF');
    expect(text).toContain('(simulated board: no model is called)');
    // Concurrent sub-problems interleave: a debate line after another sub-problem's says which one it is about.
    expect(text).toMatch(/\(Sub-problem 1 of 2: Market\)\n\n\[Maria Santos\] And churn less\./);
    // Checkpoints are the prompts' business.
    expect(text).not.toContain('Continue?');
  });

  it('colours speaker labels, sections and caveats on a terminal', () => {
    const { r, out } = render(true);
    for (const e of sessionLog()) r.add(e);
    r.flush();
    const text = out();
    expect(text).toMatch(ANSI);
    expect(text).toContain('\x1b[1m=== PROBLEM STATEMENT ===\x1b[22m');
    expect(text).toContain('\x1b[1m\x1b[34m[FACILITATOR]\x1b[39m\x1b[22m');
    expect(text).toContain('\x1b[1m\x1b[33m[Maria Santos]\x1b[39m\x1b[22m');
    expect(text).toContain('\x1b[1m\x1b[32m[Daniel Reyes]\x1b[39m\x1b[22m');
    expect(text).toContain('\x1b[31mNote: Check with an accountant.\x1b[39m');
    // Stripped of escapes it reads exactly as the plain rendering.
    const plain = render(false);
    for (const e of sessionLog()) plain.r.add(e);
    plain.r.flush();
    expect(text.replace(/\x1b\[\d+m/g, '')).toBe(plain.out());
  });

  it('prints each entry once, however often and in however many batches events arrive', () => {
    const log = sessionLog();
    const once = render(false);
    for (const e of log) once.r.add(e);
    once.r.flush();

    const { r, out } = render(false);
    for (const [i, e] of log.entries()) {
      r.add(e);
      // A reconnect replays what was already had: the same events again.
      if (i % 3 === 0) for (const again of log.slice(0, i + 1)) r.add(again);
      if (i % 2 === 0) r.flush();
      r.flush();
    }
    r.flush();
    expect(out()).toBe(once.out());
    expect(out().match(/Law firms pay more/g)).toHaveLength(1);
  });

  it('after a seq, earlier events are context only: names and totals still known', () => {
    const log = sessionLog();
    const { r, out } = render(false, 10);
    for (const e of log) r.add(e);
    r.flush();
    expect(out()).not.toContain('PROBLEM STATEMENT');
    expect(out()).not.toContain('Law firms pay more');
    expect(out()).toContain('Round 1/7 (opening) · Sub-problem 2 of 2');
    expect(out()).toContain('[Daniel Reyes] Price at $200.');
  });

  it('colour defaults to the terminal, off with NO_COLOR, and the flag wins', () => {
    expect(wantColour(undefined, true, {})).toBe(true);
    expect(wantColour(undefined, false, {})).toBe(false);
    expect(wantColour(undefined, true, { NO_COLOR: '1' })).toBe(false);
    expect(wantColour(undefined, true, { NO_COLOR: '' })).toBe(true);
    expect(wantColour(true, false, { NO_COLOR: '1' })).toBe(true);
    expect(wantColour(false, true, {})).toBe(false);
  });
});
