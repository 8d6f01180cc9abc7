import type { Persona } from './model';
import { relevance } from './personas';
import { bandOf, type EngineSettings } from './settings';

/**
 * Board selection policy (pure). The model proposes a panel per sub-problem
 * (src/calls/board.ts); this policy keeps its judgement within the rules:
 * valid codes, no duplicates, the panel size, domain coverage and a mix of
 * temperaments. It never rejects a proposal: it trims, fills and swaps by
 * the rules stated here and records a note for each change. Without a
 * proposal (the call failed) the same rules build the panel from scratch.
 */

export interface Seat {
  code: string;
  rationale: string;
}

/** A seat as kept: who put it there. */
export interface PanelSeat extends Seat {
  by: 'model' | 'policy' | 'person';
  /** A seat the person asked for in words: what they asked for, and whether the pool had a close match. */
  wanted?: { want: string; close: boolean };
}

/** What a panel is for: one sub-problem. */
export interface PanelNeed {
  id: string;
  domains: string[];
  /** Title, goal and context: what the expertise match reads. */
  text: string;
  complexity: number;
}

const spread = (values: string[]) => new Set(values).size;

/**
 * Seats for a sub-problem: `panelSize` by complexity band, raised for a
 * possible one-way door. The decomposition keeps complexity 7-10 for
 * "complex or irreversible" decisions, and a one-way door is decided by a
 * supermajority; on a panel of n the leader needs ⌈s·n⌉ votes, which on 3
 * seats at 75% is all 3: unanimity, not a supermajority. So a complex
 * sub-problem seats at least the smallest panel on which the supermajority
 * is short of unanimity (4 at 75%, 5 at 80%), at most 5, the most a board
 * edit allows. `raiseOneWayPanels: false` seats by `panelSize` alone; the
 * note then says what the supermajority means on that panel.
 */
export function seatsFor(complexity: number, s: Pick<EngineSettings, 'panelSize' | 'supermajority' | 'raiseOneWayPanels'>): { seats: number; note?: string } {
  const base = s.panelSize[bandOf(complexity)];
  if (bandOf(complexity) !== 'complex') return { seats: base };
  const needed = (n: number) => Math.ceil(s.supermajority * n - 1e-9);
  const pct = `${Math.round(s.supermajority * 100)}%`;
  let floor = 2;
  while (floor < 5 && needed(floor) >= floor) floor += 1;
  const seats = s.raiseOneWayPanels ? Math.max(base, floor) : base;
  if (needed(seats) >= seats) return { seats, note: `complexity ${complexity} may be a one-way door; on ${seats} seats a ${pct} supermajority means all ${seats} must agree` };
  if (seats > base) return { seats, note: `complexity ${complexity} may be a one-way door: ${seats} seats instead of ${base}, so that a ${pct} supermajority (${needed(seats)} of ${seats}) is not unanimity` };
  return { seats };
}

/** Deterministic fit of a candidate given the seats already chosen: what the fallback ranks by and what gaps are filled with. */
function score(p: Persona, chosen: Persona[], need: PanelNeed): number {
  const fit = p.domains.filter((d) => need.domains.includes(d)).length;
  // A persona's first domain is its home: a technical problem wants the architect before a data scientist who also lists technical.
  const home = need.domains.includes(p.domains[0]!) ? 1 : 0;
  const newDomains = p.domains.filter((d) => need.domains.includes(d) && !chosen.some((c) => c.domains.includes(d))).length;
  const next = [...chosen, p];
  const diversity = spread(next.map((x) => x.riskTolerance)) + spread(next.map((x) => x.timeHorizon)) + spread(next.map((x) => x.optimism));
  // What the sub-problem is about, against the persona's expertise: capped so words never outweigh coverage.
  const topic = Math.min(4, relevance(p, need.text) / 3);
  return fit * 2 + home * 2 + newDomains * 3 + diversity + topic;
}

function best(candidates: readonly Persona[], chosen: Persona[], need: PanelNeed): Persona | undefined {
  let top: Persona | undefined;
  let topScore = -Infinity;
  for (const p of candidates) {
    if (chosen.includes(p)) continue;
    const s = score(p, chosen, need);
    if (s > topScore) [top, topScore] = [p, s];
  }
  return top;
}

/** Why the policy seated someone, in the words the person reads. */
export function policyRationale(p: Persona, need: Pick<PanelNeed, 'domains'>): string {
  const matched = p.domains.filter((d) => need.domains.includes(d));
  const why = matched.length ? `covers ${matched.join(', ')}` : 'adds an outside perspective';
  return `${p.title}: ${why}; ${p.riskTolerance} risk tolerance, ${p.timeHorizon}-term horizon, ${p.optimism} outlook.`;
}

/**
 * The deterministic pick: domain fit, home domain, new domains, diversity of
 * risk tolerance, horizon and outlook, and expertise against the
 * sub-problem's text, chosen greedily. Deterministic for the same inputs
 * (pool order breaks ties); `size` is clamped to the pool.
 */
export function selectBoard(pool: readonly Persona[], domains: string[], size = 4, text = ''): Seat[] {
  const need = { id: '', domains, text, complexity: 0 };
  const chosen: Persona[] = [];
  while (chosen.length < Math.min(size, pool.length)) chosen.push(best(pool, chosen, need)!);
  return chosen.map((p) => ({ code: p.code, rationale: policyRationale(p, need) }));
}

/** Domains of the need that no seat covers. */
const uncovered = (seats: Persona[], need: PanelNeed) => need.domains.filter((d) => !seats.some((p) => p.domains.includes(d)));

/**
 * A mix of temperaments: risk tolerance differs across the seats (it is what
 * splits a vote on a one-way door), and so does the horizon or the outlook.
 */
export const diverse = (seats: Persona[]) =>
  seats.length < 2 || (spread(seats.map((p) => p.riskTolerance)) > 1 && (spread(seats.map((p) => p.timeHorizon)) > 1 || spread(seats.map((p) => p.optimism)) > 1));

/**
 * Settles one panel from the model's proposal (or none), in this order:
 * 1. unknown codes and repeated codes are dropped;
 * 2. more seats than `seats`: the first ones are kept (the prompt asks for
 *    the best first); the rest stay candidates for steps 4-5;
 * 3. fewer: the gaps are filled with the deterministic pick;
 * 4. a needed domain nobody covers: the last seat whose removal uncovers
 *    nothing (the policy's own seats first) is swapped for the first trimmed
 *    proposal covering it, else the best persona covering it whose expertise
 *    matches the sub-problem's text better than the model's seat it
 *    would take (else the domain stays uncovered, with a note);
 * 5. too uniform a temperament (see `diverse`): the same kind of swap, for
 *    a persona that makes the panel diverse without uncovering a domain.
 * Every change is a note, in the person's words.
 */
export function settlePanel(proposed: readonly Seat[] | undefined, need: PanelNeed, seats: number, pool: readonly Persona[]): { picks: PanelSeat[]; notes: string[] } {
  const notes: string[] = [];
  const byCode = new Map(pool.map((p) => [p.code, p]));
  const valid: PanelSeat[] = [];
  for (const s of proposed ?? []) {
    if (!byCode.has(s.code)) notes.push(`dropped "${s.code}": no such persona in the pool`);
    else if (valid.some((v) => v.code === s.code)) notes.push(`dropped a second seat for ${s.code}`);
    else valid.push({ code: s.code, rationale: s.rationale, by: 'model' });
  }
  const picks = valid.slice(0, seats);
  const spare = valid.slice(seats);
  if (spare.length) notes.push(`kept the first ${seats} of ${valid.length} proposed seats (the panel has ${seats}); set aside ${spare.map((s) => s.code).join(', ')}`);
  const personas = () => picks.map((s) => byCode.get(s.code)!);
  while (picks.length < Math.min(seats, pool.length)) {
    const p = best(pool, personas(), need)!;
    picks.push({ code: p.code, rationale: policyRationale(p, need), by: 'policy' });
    if (proposed) notes.push(`added ${p.code} to fill the panel to ${seats}`);
  }

  const fit = (p: Persona) => relevance(p, need.text);
  let heldByFit = false;
  const swap = (ok: (panel: Persona[]) => boolean, candidates: Persona[], why: string, keepFit = false): boolean => {
    // Replaceable seats, last first and the policy's own before the model's: the model's earlier seats are its strongest picks.
    const order = [...picks.keys()].reverse().sort((a, b) => Number(picks[a]!.by === 'model') - Number(picks[b]!.by === 'model'));
    for (const c of candidates) {
      for (const i of order) {
        const panel = personas().map((p, j) => (j === i ? c : p));
        // Only a seat whose removal uncovers nothing: trading one needed domain for another is no gain (an atomic
        // naming trial had its legal adviser, the one seat for a live trademark conflict, swapped out "to cover finance").
        const before = uncovered(personas(), need);
        if (uncovered(panel, need).some((d) => !before.includes(d)) || !ok(panel)) continue;
        const fromModel = spare.find((s) => s.code === c.code);
        // A domain tag does not outweigh the model's reading of the sub-problem: its seat gives way only to someone the
        // model also proposed, or whose expertise matches the sub-problem's text better (a growth trial had
        // its paid-ads expert swapped for a fundraising adviser "to cover strategy" on a bootstrapped founder's budget).
        if (keepFit && picks[i]!.by === 'model' && !fromModel && fit(c) <= fit(personas()[i]!)) {
          heldByFit = true;
          continue;
        }
        const out = picks[i]!.code;
        picks[i] = fromModel ?? { code: c.code, rationale: policyRationale(c, need), by: 'policy' };
        notes.push(`replaced ${out} with ${c.code} ${why}`);
        return true;
      }
    }
    return false;
  };
  const rankedCandidates = (fits: (p: Persona) => boolean) => {
    const fromModel = spare.map((s) => byCode.get(s.code)!).filter(fits);
    const rest = pool.filter((p) => fits(p) && !fromModel.includes(p)).sort((a, b) => score(b, personas(), need) - score(a, personas(), need));
    return [...fromModel, ...rest].filter((p) => !picks.some((s) => s.code === p.code));
  };

  for (const domain of need.domains) {
    if (!uncovered(personas(), need).includes(domain)) continue;
    heldByFit = false;
    if (!swap((panel) => panel.some((p) => p.domains.includes(domain)), rankedCandidates((p) => p.domains.includes(domain)), `to cover ${domain}`, true)) {
      notes.push(
        heldByFit
          ? `${domain} is not covered: nobody who covers it fits this sub-problem better than the seat they would take`
          : `${domain} is not covered: every seat covers a domain no other does`,
      );
    }
  }
  if (!diverse(personas()) && !swap(diverse, rankedCandidates(() => true), 'for a mix of risk tolerance and outlook')) {
    notes.push('the panel shares one temperament: no swap keeps its domains covered');
  }
  return { picks, notes };
}

/** The model's proposal as the policy reads it. */
export interface BoardProposalAnswer {
  panels: { subProblemId: string; seats: Seat[] }[];
}

/**
 * Settles every panel. A panel proposed for an unknown sub-problem, or a
 * second one for the same sub-problem, is dropped with a note; a sub-problem
 * the proposal leaves out gets the deterministic pick. Notes are prefixed
 * with the sub-problem id.
 */
export function settleBoard(
  answer: BoardProposalAnswer | null,
  needs: readonly PanelNeed[],
  seatsOf: (need: PanelNeed) => number,
  pool: readonly Persona[],
): { panels: Record<string, string[]>; picks: Record<string, PanelSeat[]>; notes: string[] } {
  const notes: string[] = [];
  const proposals = new Map<string, Seat[]>();
  for (const p of answer?.panels ?? []) {
    if (!needs.some((n) => n.id === p.subProblemId)) notes.push(`dropped a panel for "${p.subProblemId}": no such sub-problem`);
    else if (proposals.has(p.subProblemId)) notes.push(`${p.subProblemId}: dropped a second proposed panel`);
    else proposals.set(p.subProblemId, p.seats);
  }
  const panels: Record<string, string[]> = {};
  const picks: Record<string, PanelSeat[]> = {};
  for (const need of needs) {
    const proposed = proposals.get(need.id);
    if (answer && !proposed) notes.push(`${need.id}: no panel proposed; chosen by domain fit and diversity`);
    const settled = settlePanel(proposed, need, seatsOf(need), pool);
    panels[need.id] = settled.picks.map((s) => s.code);
    picks[need.id] = settled.picks;
    notes.push(...settled.notes.map((n) => `${need.id}: ${n}`));
  }
  return { panels, picks, notes };
}
