import { describe, expect, it } from 'vitest';
import { boardSelectionCall, boardSelectionSchema } from '../../src/calls/board';
import { diverse, seatsFor, selectBoard, settleBoard, settlePanel, type PanelNeed } from '../../src/domain/board';
import { personaByCode, PERSONAS, personaSummary, relevance } from '../../src/domain/personas';
import { DEFAULT_ENGINE_SETTINGS } from '../../src/domain/settings';
import { simulate } from '../../src/llm/simulated/simulated-provider';

const P = (code: string) => personaByCode(code)!;
const seat = (code: string) => ({ code, rationale: `why ${code}` });
const need = (over: Partial<PanelNeed> = {}): PanelNeed => ({ id: 'sp1', domains: ['technical', 'risk'], text: 'Stabilise the database and pass a security review', complexity: 5, ...over });

describe('panel size and the one-way floor', () => {
  const S = DEFAULT_ENGINE_SETTINGS;
  it('seats by complexity band', () => {
    expect(seatsFor(2, S).seats).toBe(3);
    expect(seatsFor(5, S).seats).toBe(4);
    expect(seatsFor(8, S).seats).toBe(5);
  });
  it('raises a complex panel of 3 to 4, so that 75% is 3 of 4 and not unanimity, and says so', () => {
    const small = { ...S, panelSize: { simple: 3, moderate: 3, complex: 3 } };
    expect(seatsFor(8, small)).toEqual({ seats: 4, note: expect.stringMatching(/4 seats instead of 3.*3 of 4.*not unanimity/) });
    expect(seatsFor(6, small)).toEqual({ seats: 3 });
    // The floor follows the supermajority: at 80%, 4 seats still need all 4.
    expect(seatsFor(8, { ...small, supermajority: 0.8 }).seats).toBe(5);
  });
  it('states the unanimity when the floor is switched off or cannot be met', () => {
    const off = { ...S, panelSize: { simple: 3, moderate: 3, complex: 3 }, raiseOneWayPanels: false };
    expect(seatsFor(8, off)).toEqual({ seats: 3, note: expect.stringMatching(/on 3 seats a 75% supermajority means all 3 must agree/) });
    expect(seatsFor(8, { ...S, supermajority: 0.9 })).toEqual({ seats: 5, note: expect.stringMatching(/all 5/) });
  });
});

describe('settling a proposed panel', () => {
  it("keeps a valid proposal as the model gave it, rationales and order included", () => {
    const { picks, notes } = settlePanel([seat('security_officer'), seat('fractional_cto'), seat('engineering_manager')], need(), 3, PERSONAS);
    expect(picks).toEqual([
      { code: 'security_officer', rationale: 'why security_officer', by: 'model' },
      { code: 'fractional_cto', rationale: 'why fractional_cto', by: 'model' },
      { code: 'engineering_manager', rationale: 'why engineering_manager', by: 'model' },
    ]);
    expect(notes).toEqual([]);
  });

  it('drops unknown and repeated codes with a note, and fills the gap by the deterministic pick', () => {
    const { picks, notes } = settlePanel([seat('security_officer'), seat('astrologer'), seat('security_officer')], need(), 3, PERSONAS);
    expect(picks).toHaveLength(3);
    expect(picks[0]).toMatchObject({ code: 'security_officer', by: 'model' });
    expect(picks.slice(1).every((p) => p.by === 'policy' && /risk tolerance/.test(p.rationale))).toBe(true);
    expect(notes).toEqual(expect.arrayContaining(['dropped "astrologer": no such persona in the pool', 'dropped a second seat for security_officer']));
    expect(notes.filter((n) => n.startsWith('added '))).toHaveLength(2);
  });

  it('keeps the first seats of a proposal that names too many, and records what it set aside', () => {
    const proposed = ['security_officer', 'fractional_cto', 'engineering_manager', 'risk_manager', 'technical_architect'].map(seat);
    const { picks, notes } = settlePanel(proposed, need(), 3, PERSONAS);
    expect(picks.map((p) => p.code)).toEqual(['security_officer', 'fractional_cto', 'engineering_manager']);
    expect(notes).toEqual(['kept the first 3 of 5 proposed seats (the panel has 3); set aside risk_manager, technical_architect']);
  });

  it('swaps in a set-aside proposal before anyone else to cover a domain', () => {
    // None of the first three covers finance; the model's fourth does.
    const proposed = ['technical_architect', 'engineering_manager', 'product_manager', 'turnaround_cfo'].map(seat);
    const { picks, notes } = settlePanel(proposed, need({ domains: ['technical', 'finance'] }), 3, PERSONAS);
    expect(picks.map((p) => p.code)).toContain('turnaround_cfo');
    expect(picks.find((p) => p.code === 'turnaround_cfo')).toMatchObject({ by: 'model', rationale: 'why turnaround_cfo' });
    expect(notes.at(-1)).toMatch(/^replaced product_manager with turnaround_cfo to cover finance$/);
  });

  it('covers a needed domain the proposal misses with the best persona for it', () => {
    const { picks, notes } = settlePanel(['technical_architect', 'engineering_manager', 'product_manager'].map(seat), need({ domains: ['technical', 'legal'] }), 3, PERSONAS);
    expect(picks.some((p) => P(p.code).domains.includes('legal'))).toBe(true);
    expect(notes.some((n) => /to cover legal$/.test(n))).toBe(true);
  });

  it("never swaps the model's seat for a domain tag's sake to someone who fits the sub-problem worse", () => {
    // The growth-channel trial's sp3: the model seated the paid-ads expert for a $500 budget; "strategy" was uncovered,
    // and the policy had swapped her for the fundraising adviser, who knows nothing of paid ads.
    const sp3 = need({
      id: 'sp3',
      domains: ['operations', 'strategy', 'finance'],
      text: 'Weekly time/budget split and 6-month test plan with kill criteria\nDecide how to split the 20 hours/week and $500/month across the chosen channel(s), existing customers and product work, and what leading indicators at which checkpoints trigger doubling down or switching channels.\nAds budget is $500/month; no money for hires.',
    });
    const { picks, notes } = settlePanel(['operations_expert', 'data_scientist', 'performance_marketer'].map(seat), sp3, 3, PERSONAS);
    expect(picks.map((p) => p.code)).toContain('performance_marketer');
    expect(picks.map((p) => p.code)).not.toContain('fundraising_advisor');
    // Whatever did change, the newcomer reads the sub-problem better than the model's seat it took.
    for (const n of notes) {
      const m = /^replaced (\w+) with (\w+) to cover/.exec(n);
      if (m) expect(relevance(P(m[2]!), sp3.text)).toBeGreaterThan(relevance(P(m[1]!), sp3.text));
    }
  });

  it('says why a domain stays uncovered when no covering candidate fits better than the seat it would take', () => {
    const n = need({ domains: ['technical', 'legal'], text: 'Refactor the legacy codebase: architecture, automated tests and the deploy pipeline' });
    const { picks, notes } = settlePanel(['technical_architect', 'engineering_manager', 'fractional_cto'].map(seat), n, 3, PERSONAS);
    expect(picks.map((p) => p.code)).toEqual(['technical_architect', 'engineering_manager', 'fractional_cto']);
    expect(notes).toEqual(['legal is not covered: nobody who covers it fits this sub-problem better than the seat they would take']);
    // A sub-problem about a team: the people partner (who also covers legal) reads it better than the data scientist, and takes the seat.
    const team = need({ domains: ['technical', 'legal'], text: 'Scale the engineering team and its software architecture' });
    expect(settlePanel(['technical_architect', 'fractional_cto', 'data_scientist'].map(seat), team, 3, PERSONAS).notes).toEqual(['replaced data_scientist with people_partner to cover legal']);
  });

  it('never trades one needed domain for another: a swap may only add coverage', () => {
    // The atomic naming trial's sub-problem: four domains, three seats. The brand marketer alone covers strategy and the
    // legal adviser alone legal; a paid-search expert who covers finance reads its text as well as the SEO lead.
    const n = need({
      domains: ['legal', 'market', 'strategy', 'finance'],
      text:
        'Decide which of the two names the startup adopts before incorporating next month, and what must be verified (trademark clearance, domain purchase) before committing to it. ' +
        'B2B developer tool (API mocking/contract testing), self-serve $49-$499/month, US/UK first. FooBar: on deck, landing page, ~300 waitlist; foobar.com $18,000 via broker; ' +
        '.dev/.io free; @foobar taken on X/GitHub; live FOOBAR class 9 mark (gaming mice); generic code placeholder. BarFoo: barfoo.com $2,400; handles free; no USPTO hit.',
    });
    const { picks, notes } = settlePanel(['legal_advisor', 'brand_marketer', 'seo_content_lead'].map(seat), n, 3, PERSONAS);
    // Before, the brand marketer gave way "to cover finance", leaving strategy to nobody.
    expect(picks.map((p) => p.code)).toEqual(['legal_advisor', 'brand_marketer', 'seo_content_lead']);
    expect(notes).toEqual([expect.stringMatching(/^finance is not covered/)]);
  });

  it('reads a trademark question as the legal adviser\'s', () => {
    const text = 'Decide whether the FooBar trademark conflict is acceptable and which clearance search to run';
    expect(relevance(P('legal_advisor'), text)).toBeGreaterThan(relevance(P('performance_marketer'), text));
  });

  it('breaks up a panel of one temperament without uncovering a domain', () => {
    // All low risk tolerance.
    const proposed = ['financial_analyst', 'risk_manager', 'turnaround_cfo'].map(seat);
    expect(diverse(proposed.map((s) => P(s.code)))).toBe(false);
    const { picks, notes } = settlePanel(proposed, need({ domains: ['finance', 'risk'] }), 3, PERSONAS);
    const panel = picks.map((p) => P(p.code));
    expect(diverse(panel)).toBe(true);
    expect(['finance', 'risk'].every((d) => panel.some((p) => p.domains.includes(d)))).toBe(true);
    expect(notes.some((n) => /for a mix of risk tolerance and outlook$/.test(n))).toBe(true);
  });

  it('without a proposal, is the deterministic pick', () => {
    const n = need({ domains: ['people', 'technical'], text: 'Two reluctant senior engineers and hiring a contractor' });
    const { picks, notes } = settlePanel(undefined, n, 4, PERSONAS);
    expect(picks.map((p) => p.code)).toEqual(selectBoard(PERSONAS, n.domains, 4, n.text).map((s) => s.code));
    expect(notes).toEqual([]);
  });
});

describe('the deterministic pick', () => {
  it('seats a people expert on a staffing problem and a technical one on a technical problem', () => {
    const staffing = selectBoard(PERSONAS, ['people', 'operations'], 3, 'Two senior engineers are reluctant to move to the new team; hire or reassign?').map((s) => P(s.code));
    expect(staffing.some((p) => p.domains[0] === 'people')).toBe(true);
    const technical = selectBoard(PERSONAS, ['technical', 'risk'], 3, 'PostgreSQL at its limits, no tests, security gaps').map((s) => P(s.code));
    expect(technical.filter((p) => p.domains[0] === 'technical').length).toBeGreaterThanOrEqual(1);
    expect(diverse(technical)).toBe(true);
  });
});

describe('settling the whole board', () => {
  const needs = [need(), need({ id: 'sp2', domains: ['finance', 'people'], text: 'Cash for a contractor', complexity: 8 })];
  it('drops panels for unknown sub-problems and second panels, and picks for the sub-problems left out', () => {
    const answer = {
      panels: [
        { subProblemId: 'sp9', seats: [seat('risk_manager')] },
        { subProblemId: 'sp1', seats: ['security_officer', 'fractional_cto', 'engineering_manager'].map(seat) },
        { subProblemId: 'sp1', seats: [seat('risk_manager')] },
      ],
    };
    const { panels, picks, notes } = settleBoard(answer, needs, (n) => (n.complexity >= 7 ? 4 : 3), PERSONAS);
    expect(panels.sp1).toEqual(['security_officer', 'fractional_cto', 'engineering_manager']);
    expect(panels.sp2).toHaveLength(4);
    expect(picks.sp2!.every((p) => p.by === 'policy')).toBe(true);
    expect(notes).toEqual(
      expect.arrayContaining(['dropped a panel for "sp9": no such sub-problem', 'sp1: dropped a second proposed panel', 'sp2: no panel proposed; chosen by domain fit and diversity']),
    );
  });
});

describe('the simulated board', () => {
  it('answers board_selection with the deterministic pick, valid against the call schema', () => {
    const input = {
      subProblems: [{ id: 'sp1', title: 'Contractor or not', goal: 'Decide whether to pay a contractor for the refactor', context: '$55K cash', domains: ['finance', 'people', 'operations'], complexity: 6, seats: 4 }],
      pool: PERSONAS.map((p) => ({ code: p.code, summary: personaSummary(p) })),
    };
    const text = simulate({ key: 's:board#1', purpose: 'board_selection', input });
    expect(simulate({ key: 's:board#1', purpose: 'board_selection', input })).toBe(text);
    const answer = boardSelectionSchema.parse(JSON.parse(text));
    const sp = input.subProblems[0]!;
    expect(answer.panels[0]!.seats.map((s) => s.code)).toEqual(selectBoard(PERSONAS, sp.domains, 4, `${sp.title}\n${sp.goal}\n${sp.context}`).map((s) => s.code));
    // And the policy keeps it as it is.
    const settled = settleBoard(answer, [{ id: 'sp1', domains: sp.domains, text: `${sp.title}\n${sp.goal}\n${sp.context}`, complexity: 6 }], () => 4, PERSONAS);
    expect(settled.notes).toEqual([]);
    expect(boardSelectionCall.tier).toBe('fast');
  });
});
