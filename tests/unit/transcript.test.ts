import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../src/domain/events';
import { DISCLAIMERS, disclaimersFor, lintAdvisory, mergeDisclaimers } from '../../src/domain/guardrails';
import { SPECIFIC_LEADS } from '../../src/domain/disclaimers';
import { transcriptEntries, transcriptMarkdown } from '../../src/domain/transcript';

/** The log of a model-written trial whose sub-problems 1 and 2 debated concurrently. */
const log = JSON.parse(readFileSync(new URL('../fixtures/trials/cofounder-auto/events.json', import.meta.url), 'utf8')) as Envelope[];
const md = transcriptMarkdown(transcriptEntries(log));
/** A text as the standard transcript reads it: the board's "sp2" as "sub-problem 2" (these slices cite no ledger id). */
const asRead = (t: unknown) => String(t).replace(/\bsp(\d+)\b/g, 'sub-problem $1');
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
      for (const t of turns(sp)) expect(body, `${sp} turn ${t.seq}`).toContain(asRead(t.data.text).slice(0, 80));
      for (const other of ['sp1', 'sp2', 'sp3'].filter((x) => x !== sp)) {
        for (const t of turns(other)) expect(body).not.toContain(asRead(t.data.text).slice(0, 80));
      }
      expect(body.match(/### Round 1\//g)).toHaveLength(1);
      expect(body).toMatch(/Votes: A \d+ · B \d+/);
    }
  });

  it('shows the clarifying questions, each synthesis with its rationale, dissent and caveats, and the conflicts and trade-offs', () => {
    const requested = log.find((e) => e.type === 'clarification.requested')!.data as { mode: string; questions: { question: string }[] };
    for (const q of requested.questions) expect(md).toContain(q.question);
    // Nobody answers in an automatic session, and the transcript says so where the questions are.
    expect(requested.mode).toBe('auto');
    expect(section(/## === CLARIFYING QUESTIONS ===/)).toContain('Nobody answers these in an automatic session');
    // An interactive session with its clarification checkpoint off leaves them unanswered too, and is not automatic.
    const interactive = log.map((e) => (e.type === 'session.created' ? { ...e, data: { ...e.data, mode: 'interactive' } } : e));
    const said = transcriptMarkdown(transcriptEntries(interactive));
    expect(said).toContain('Nobody answers these in this session (its clarification checkpoint is off)');
    expect(said).not.toContain('in an automatic session');
    for (const e of log.filter((x) => x.type === 'synthesis.completed')) {
      const s = e.data.synthesis as { rationale: string; caveats: string[] };
      expect(md).toContain(asRead(s.rationale).slice(0, 60));
      for (const c of s.caveats) expect(md).toContain(asRead(c).slice(0, 60));
    }
    const rec = log.find((e) => e.type === 'recommendation.completed')!.data as { tradeoffs: string[]; conflicts: { resolution: string }[] };
    for (const t of rec.tradeoffs) expect(md).toContain(asRead(t).slice(0, 60));
    for (const c of rec.conflicts) expect(md).toContain(asRead(c.resolution).slice(0, 60));
  });

  it('says each disclaimer once, at the end', () => {
    const notes = section(/## === NOTES ===/);
    const lines = notes.split('\n').filter((l) => l.startsWith('- '));
    expect(lines.length).toBeGreaterThan(0);
    expect(new Set(lines).size).toBe(lines.length);
    for (const l of lines) expect(md.split(l.slice(2)).length - 1, l).toBe(1);
  });
});

describe('the answer first', () => {
  it("puts the recommendation's summary and confidence under the problem, points to the whole of it at the end, and keeps it out of the live console", () => {
    const rec = log.find((e) => e.type === 'recommendation.completed')!.data as { summary: string; confidence: number };
    const heads = [...md.matchAll(/^## === (.+) ===$/gm)].map((m) => m[1]);
    expect(heads.slice(0, 2)).toEqual(['PROBLEM', 'IN BRIEF']);
    expect(heads.at(-1) === 'NOTES' ? heads.at(-2) : heads.at(-1)).toBe('RECOMMENDATION');
    const brief = section(/## === IN BRIEF ===/);
    expect(brief).toContain(rec.summary);
    expect(brief).toContain(`Confidence: ${rec.confidence}. The whole recommendation, with its steps, the conflicting figures it reconciles and trade-offs, is the last section`);
    // The summary reads once in the Markdown: the last section points to the brief; the JSON entry keeps it whole.
    const last = section(/## === RECOMMENDATION ===/);
    expect(last).not.toContain(rec.summary);
    expect(last).toContain('**[FACILITATOR]** The summary is at the top, under IN BRIEF.');
    expect(transcriptEntries(log).find((x) => x.kind === 'recommendation')!.text.startsWith(rec.summary)).toBe(true);
    // A log with no recommendation (a failed or running session) has no brief.
    const partial = transcriptMarkdown(transcriptEntries(log.filter((e) => e.type !== 'recommendation.completed')));
    expect(partial).not.toContain('IN BRIEF');
  });
});

describe('as rendered Markdown', () => {
  it('keeps each line of an entry a line: a hard break between plain lines, none before a list item', () => {
    const asked = log.find((e) => e.type === 'clarification.requested')!.data.questions as { question: string; why: string }[];
    expect(asked.length).toBeGreaterThan(1);
    // Consecutive questions are a numbered list, so rendered Markdown cannot run them into one paragraph.
    expect(md).toContain(`1. ${asked[0]!.question} (${asked[0]!.why})\n2. ${asked[1]!.question}`);
    // An option's pros and cons: "− con" is no list marker, so it needs the break after the "+ pro" above it.
    expect(md).toMatch(/^ {3}\+ .+ {2}\n {3}− /m);
    // Before a list item the break is the list's own.
    expect(md).toMatch(/^Caveats:\n- /m);
  });
});

describe("the board's own references", () => {
  it('reads a ledger id as the fact it names and "sp2" as "sub-problem 2"; the detailed transcript keeps them', () => {
    const growth = JSON.parse(readFileSync(new URL('../fixtures/transcripts/growth-channel-auto/events.json', import.meta.url), 'utf8')) as Envelope[];
    const standard = transcriptMarkdown(transcriptEntries(growth));
    const detailed = transcriptMarkdown(transcriptEntries(growth, 'detailed'));
    // An expert cited "the ~16 customers a month in sp1.r2.f1"; that fact, by its words:
    const fact = growth.flatMap((e) => (e.type === 'facts.recorded' ? (e.data.facts as { id: string; text: string }[]) : [])).find((f) => f.id === 'sp1.r2.f1')!;
    expect(detailed).toContain('sp1.r2.f1');
    expect(standard).not.toMatch(/\bsp\d+\.r\d+\.f\d+\b/);
    expect(standard).toContain(`“${fact.text.split(/\s+/).slice(0, 8).join(' ')}…”`);
    expect(standard).not.toMatch(/\bsp\d+\b/);
    expect(detailed).toMatch(/\bsp\d+\b/);
  });
});

describe("the facilitator's question", () => {
  it("shows, in the standard transcript, the question each round's summary put to the panel, not the summary itself", () => {
    const summaries = log.filter((e) => e.type === 'facilitator.message' && e.data.kind === 'summary');
    expect(summaries.length).toBeGreaterThan(0);
    for (const e of summaries) {
      const text = String(e.data.text);
      const next = text.slice(text.lastIndexOf(' Next: ') + ' Next: '.length);
      expect(md).toContain(`**[FACILITATOR]** Asks the panel next: ${asRead(next)}`);
      expect(md).not.toContain(asRead(text.slice(0, text.lastIndexOf(' Next: '))).slice(0, 80));
    }
  });
});

describe('questions for the person', () => {
  it("shows an expert's question once per sub-problem when later rounds ask it again, and the detailed transcript keeps every one", () => {
    // Nobody answers in an automatic session; this trial's experts asked the same question up to three times.
    const growth = JSON.parse(readFileSync(new URL('../fixtures/transcripts/growth-channel-auto/events.json', import.meta.url), 'utf8')) as Envelope[];
    const asked = growth.filter((e) => e.type === 'contribution.completed' && e.data.questionForPerson).map((e) => String(e.data.questionForPerson));
    const shown = (md: string) => md.match(/^Question for you: .*$/gm) ?? [];
    const standard = shown(transcriptMarkdown(transcriptEntries(growth)));
    expect(shown(transcriptMarkdown(transcriptEntries(growth, 'detailed')))).toHaveLength(asked.length);
    expect(standard.length).toBeLessThan(asked.length);
    expect(new Set(standard).size).toBe(standard.length);
    // A later question that asks more than the first (savings, then the part-time job's pay) is kept.
    expect(standard).toContain('Question for you: How much do you have in savings, and what does your part-time job pay per month?');
    expect(standard).toContain('Question for you: How much do you have in savings, and does the $3K MRR currently go to living costs or stay in the business?');
    // Every question asked is shown in some form: each one's words are all in a question shown.
    const words = (q: string) => q.toLowerCase().match(/[\p{L}\p{N}$%]+/gu)!;
    for (const q of asked) expect(standard.some((s) => words(q).every((w) => words(s).includes(w))), q).toBe(true);
  });
});

describe('dissent', () => {
  const read = (name: string) => {
    const events = JSON.parse(readFileSync(new URL(`../fixtures/trials/${name}/events.json`, import.meta.url), 'utf8')) as Envelope[];
    return transcriptMarkdown(transcriptEntries(events));
  };
  it('is what an expert who voted against the winner said; what those who voted for it said is labelled a reservation', () => {
    // Every vote of this trial was unanimous, and its syntheses listed reservations as "dissent".
    const unanimous = read('product-board-auto');
    expect(unanimous).not.toMatch(/^Dissent:/m);
    expect(unanimous.match(/^Reservations of experts who voted for it:/gm)).toHaveLength(3);
    expect(unanimous).toContain('- Sofia Lindqvist voted for the rule but warns');
    // Sofia voted B against A's three in product-auto's sp1: her concern is dissent.
    const split = read('product-auto');
    const sp1 = split.slice(split.indexOf('SUB-PROBLEM 1 OF'), split.indexOf('SUB-PROBLEM 2 OF'));
    expect(sp1).toMatch(/^Dissent:\n- Sofia Lindqvist voted for an equal four-week race/m);
  });
});

describe('the votes', () => {
  it('say a confidence that calibration changed both ways, as the dissent quotes the later one', () => {
    const product = JSON.parse(readFileSync(new URL('../fixtures/trials/product-auto/events.json', import.meta.url), 'utf8')) as Envelope[];
    const text = transcriptMarkdown(transcriptEntries(product));
    // growth_strategist went 0.55 → 0.45 in sp1; product_manager stayed at 0.75.
    expect(text).toMatch(/\*\*\[Sofia Lindqvist\]\*\* votes B \(confidence 0\.55, 0\.45 after hearing the others\)/);
    expect(text).toMatch(/\*\*\[Tomás Rivera\]\*\* votes A \(confidence 0\.75\):/);
    // Live, the vote prints before its calibration exists: the log so far says the one confidence.
    const live = transcriptMarkdown(transcriptEntries(product.filter((e) => e.type !== 'votes.calibrated')));
    expect(live).toMatch(/\*\*\[Sofia Lindqvist\]\*\* votes B \(confidence 0\.55\):/);
  });

  it('show each strong objection with the vote that made it (the synthesis answers them by name)', () => {
    const seo = JSON.parse(readFileSync(new URL('../fixtures/trials/seo-board-auto/events.json', import.meta.url), 'utf8')) as Envelope[];
    const text = transcriptMarkdown(transcriptEntries(seo));
    const objections = seo.filter((e) => e.type === 'vote.cast' && e.data.strongObjection).map((e) => String(e.data.strongObjection));
    expect(objections.length).toBeGreaterThan(0);
    for (const o of objections) expect(text).toContain(`Strong objection: ${o}`);
  });
});

describe('the fact ledger and the final reconciliation, as a reader meets them', () => {
  const pricing = JSON.parse(readFileSync(new URL('../fixtures/trials/pricing-auto/events.json', import.meta.url), 'utf8')) as Envelope[];
  const facts = pricing.filter((e) => e.type === 'facts.recorded').flatMap((e) => e.data.facts as { id: string; text: string; replaces?: string[] }[]);

  it('names a revised fact by its words, and keeps the ledger ids for the detailed transcript', () => {
    const standard = transcriptMarkdown(transcriptEntries(pricing));
    expect(standard).not.toMatch(/sp\d\.r\d\.f\d/);
    const revising = facts.find((f) => f.replaces?.length)!;
    const old = facts.find((f) => f.id === revising.replaces![0])!;
    expect(standard).toContain(`${revising.text} (revises the earlier “${old.text.split(/\s+/).slice(0, 12).join(' ')}`);
    const detailed = transcriptMarkdown(transcriptEntries(pricing, 'detailed'));
    expect(detailed).toContain(`[${revising.id}] ${revising.text} (replaces ${revising.replaces!.join(', ')})`);
  });

  it("says under a sub-problem's decision that the final recommendation revises it where they conflict", () => {
    const md = transcriptMarkdown(transcriptEntries(pricing));
    const conflicts = pricing.find((e) => e.type === 'recommendation.completed')!.data.conflicts as { between: string[] }[];
    expect(conflicts.length).toBeGreaterThan(0);
    for (const sp of new Set(conflicts.flatMap((c) => c.between))) {
      const n = sp.slice(2);
      const start = md.search(new RegExp(`## === SUB-PROBLEM ${n} OF`));
      const body = md.slice(start, md.indexOf('## ===', start + 1));
      expect(body, sp).toMatch(/The final recommendation reconciles this with sub-problems? [\d, and]+ where they conflict \(its “Conflicting figures, reconciled”\)/);
    }
  });

  it('names no sub-problem on a reconciled conflict when the session had one (the detailed transcript keeps the id)', () => {
    const atomic = JSON.parse(readFileSync(new URL('../fixtures/trials/pricing-atomic-auto/events.json', import.meta.url), 'utf8')) as Envelope[];
    const conflicts = atomic.find((e) => e.type === 'recommendation.completed')!.data.conflicts as { resolution: string }[];
    expect(conflicts.length).toBeGreaterThan(1);
    const lines = (md: string) => md.slice(md.indexOf('Conflicting figures, reconciled:')).split('\n').slice(1, conflicts.length + 1);
    const standard = lines(transcriptMarkdown(transcriptEntries(atomic)));
    expect(standard).toHaveLength(conflicts.length);
    for (const l of standard) expect(l).toMatch(/^- (?!sub-problem)/);
    for (const l of lines(transcriptMarkdown(transcriptEntries(atomic, 'detailed')))) expect(l).toMatch(/^- sp1: /);
    // With several sub-problems, each line still names them.
    expect(transcriptMarkdown(transcriptEntries(pricing))).toMatch(/Conflicting figures, reconciled:\n- sub-problems? \d/);
  });
});

describe('the questions left for the person', () => {
  const raised = [
    { subProblemId: 'sp1', persona: 'financial_analyst', name: 'Daniel Reyes', question: 'What is your monthly churn?' },
    { subProblemId: 'sp2', persona: 'growth_strategist', name: 'Maria Santos', question: 'What is your monthly churn?' },
    { subProblemId: 'sp2', persona: 'sales_leader', name: 'Sam Ortiz', question: 'Which stores answered your Reddit posts?' },
    { subProblemId: 'sp3', persona: 'risk_manager', name: 'Ken Abe', question: 'Can you take a month off your job?' },
  ];
  const rec = (extra: Record<string, unknown>) =>
    [{ seq: 1, type: 'recommendation.completed', at: '2026-11-25T00:00:00Z', data: { summary: 'We recommend a Shopify listing first.', steps: ['List the app.'], tradeoffs: [], conflicts: [], confidence: 'medium', disclaimers: [], advisoryFixes: [], openQuestions: raised, ...extra } }] as unknown as Envelope[];
  const chosen = [{ question: 'What is your monthly churn?', changes: 'Above 5%, fix retention before buying traffic.' }];

  it('shows the few the recommendation chose, with what each answer changes, and how many were raised in all', () => {
    const standard = transcriptMarkdown(transcriptEntries(rec({ questionsForYou: chosen })));
    expect(standard).toContain('Questions for you: the answers would change the plan:\n- What is your monthly churn? — Above 5%, fix retention before buying traffic.');
    expect(standard).toContain('(4 questions were raised in all; the detailed transcript lists every one.)');
    expect(standard).not.toContain('Which stores answered your Reddit posts?');
    const detailed = transcriptMarkdown(transcriptEntries(rec({ questionsForYou: chosen }), 'detailed'));
    for (const q of raised) expect(detailed).toContain(`${q.question} (${q.name}, ${q.subProblemId})`);
  });

  it('shows a log from before the recommendation chose them as it was: every raised question', () => {
    const old = transcriptMarkdown(transcriptEntries(rec({})));
    expect(old).toContain('Open questions only you can answer (the plan depends on them):');
    for (const q of raised) expect(old).toContain(q.question);
  });
});

describe("the person's interventions", () => {
  const events = JSON.parse(readFileSync(new URL('../fixtures/trials/tech-debt-interactive/events.json', import.meta.url), 'utf8')) as Envelope[];
  const said = events.filter((e) => e.type === 'checkpoint.resolved' && e.data.action === 'intervene').map((e) => String(e.data.message));

  it("reads once, as the person's, and the facilitator's relay of it only in the detailed transcript", () => {
    expect(said.length).toBeGreaterThan(0);
    const standard = transcriptMarkdown(transcriptEntries(events));
    const detailed = transcriptMarkdown(transcriptEntries(events, 'detailed'));
    for (const m of said) {
      const start = m.slice(0, 60);
      expect(standard.split(start).length - 1, start).toBe(1);
      expect(detailed.split(start).length - 1, start).toBe(2);
    }
  });
});

describe('specific disclaimers', () => {
  const legal = (acts: string[]) => mergeDisclaimers([disclaimersFor({ text: '', domains: [], oneWayDoor: false, beyondGeneralGuidance: acts.map((what) => ({ kind: 'legal' as const, what })) })]);
  const agreement = 'have a lawyer review the revenue-share agreement before you sign it';
  const contract = 'have a lawyer draft the freelancer contract before the work starts';
  const synthesis = (seq: number, subProblemId: string, disclaimers: unknown[]) => ({
    seq,
    type: 'synthesis.completed',
    at: '2026-11-25T00:00:00Z',
    data: { subProblemId, synthesis: { recommendation: 'We recommend the partner channel.', rationale: 'It fits.', dissent: [], caveats: [], confidence: 0.7 }, disclaimers, advisoryFixes: [] },
  });
  const events = [
    synthesis(1, 'sp1', legal([agreement])),
    synthesis(2, 'sp2', [...legal([agreement, contract]), { kind: 'financial', text: DISCLAIMERS.financial }, { kind: 'irreversible', text: DISCLAIMERS.irreversible }]),
    {
      seq: 3,
      type: 'recommendation.completed',
      at: '2026-11-25T00:00:00Z',
      data: { summary: 'We recommend the partner channel first.', steps: ['Sign up two agencies.'], tradeoffs: [], conflicts: [], confidence: 'medium', advisoryFixes: [], disclaimers: mergeDisclaimers([legal([agreement]), legal([agreement, contract])]) },
    },
  ] as unknown as Envelope[];

  it('says each specific act once, and a later sub-problem adds only the acts not said yet', () => {
    const notes = transcriptEntries(events).filter((e) => e.kind === 'disclaimer').map((e) => e.text);
    expect(notes).toEqual([
      `${SPECIFIC_LEADS.legal} ${agreement}.`,
      `Also beyond general guidance (legal): ${contract}.`,
      DISCLAIMERS.financial,
      DISCLAIMERS.irreversible,
    ]);
    const md = transcriptMarkdown(transcriptEntries(events));
    expect(md.split(agreement).length - 1).toBe(1);
    expect(md.split(contract).length - 1).toBe(1);
    for (const n of notes) expect(lintAdvisory(n).ok).toBe(true);
  });
});
