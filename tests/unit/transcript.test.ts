import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../src/domain/events';
import { transcriptEntries, transcriptMarkdown } from '../../src/domain/transcript';

/** The log of a model-written trial whose sub-problems 1 and 2 debated concurrently. */
const log = JSON.parse(readFileSync(new URL('../fixtures/trials/cofounder-auto/events.json', import.meta.url), 'utf8')) as Envelope[];
const md = transcriptMarkdown(transcriptEntries(log));
const section = (title: RegExp) => {
  const start = md.search(title);
  const next = md.indexOf('## ===', start + 1);
  return md.slice(start, next < 0 ? undefined : next);
};

describe('the transcript of a session whose sub-problems ran concurrently', () => {
  it("puts each sub-problem's rounds, options and votes under its own heading", () => {
    const turns = (sp: string) => log.filter((e) => e.type === 'contribution.completed' && e.data.subProblemId === sp);
    for (const sp of ['sp1', 'sp2', 'sp3']) {
      const n = Number(sp.slice(2));
      const body = section(new RegExp(`## === SUB-PROBLEM ${n} OF 3`));
      for (const t of turns(sp)) expect(body, `${sp} turn ${t.seq}`).toContain(String(t.data.text).slice(0, 80));
      for (const other of ['sp1', 'sp2', 'sp3'].filter((x) => x !== sp)) {
        for (const t of turns(other)) expect(body).not.toContain(String(t.data.text).slice(0, 80));
      }
      expect(body.match(/### Round 1\//g)).toHaveLength(1);
      expect(body).toMatch(/Votes: A \d+ · B \d+/);
    }
  });

  it('shows the clarifying questions, each synthesis with its rationale, dissent and caveats, and the conflicts and trade-offs', () => {
    const asked = log.find((e) => e.type === 'clarification.requested')!.data.questions as { question: string }[];
    for (const q of asked) expect(md).toContain(q.question);
    for (const e of log.filter((x) => x.type === 'synthesis.completed')) {
      const s = e.data.synthesis as { rationale: string; caveats: string[] };
      expect(md).toContain(s.rationale.slice(0, 60));
      for (const c of s.caveats) expect(md).toContain(c.slice(0, 60));
    }
    const rec = log.find((e) => e.type === 'recommendation.completed')!.data as { tradeoffs: string[]; conflicts: { resolution: string }[] };
    for (const t of rec.tradeoffs) expect(md).toContain(t.slice(0, 60));
    for (const c of rec.conflicts) expect(md).toContain(c.resolution.slice(0, 60));
  });

  it('says each disclaimer once, at the end', () => {
    const notes = section(/## === NOTES ===/);
    const lines = notes.split('\n').filter((l) => l.startsWith('- '));
    expect(lines.length).toBeGreaterThan(0);
    expect(new Set(lines).size).toBe(lines.length);
    for (const l of lines) expect(md.split(l.slice(2)).length - 1, l).toBe(1);
  });
});
