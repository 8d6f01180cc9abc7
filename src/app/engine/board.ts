import { boardSelectionCall } from '../../calls/board';
import { seatsFor, settleBoard, type BoardProposalAnswer, type PanelNeed, type PanelSeat } from '../../domain/board';
import { applyBoardEdit, type ResolvedBoardEdit } from '../../domain/checkpoints';
import { event } from '../../domain/events';
import { PERSONAS, personaSummary } from '../../domain/personas';
import { LlmError } from '../../ports/llm';
import { ask } from './checkpoints';
import { persona, type Engine, type Framing } from './context';

export interface Board {
  /** Persona codes per sub-problem. */
  panels: Record<string, string[]>;
  members: { code: string; name: string; title: string; rationale: string; subProblems: string[] }[];
  /** Each seat's rationale, per sub-problem, and who chose it. */
  picks: Record<string, PanelSeat[]>;
}

/**
 * Each sub-problem gets its own panel: the model proposes one per
 * sub-problem by what it is about (`board_selection`), and the policy in
 * src/domain/board.ts holds it to the rules (size by complexity and the
 * one-way floor, domain coverage, a mix of temperaments, valid codes),
 * noting every change. If the call fails, the same policy picks by domain
 * fit and diversity alone. The session's board is the union; in interactive
 * mode the person may then remove, add or ask for a kind of expert.
 */
export async function assembleBoard(e: Engine, f: Framing): Promise<Board> {
  const proposed = await e.run.step('board', async (s) => {
    const needs: PanelNeed[] = f.order.map((id) => {
      const sp = f.subProblems.find((x) => x.id === id)!;
      return { id, domains: sp.domains, text: `${sp.title}\n${sp.goal}\n${sp.context}`, complexity: sp.complexity };
    });
    const sizing = new Map(needs.map((n) => [n.id, seatsFor(n.complexity, e.settings)]));
    let answer: BoardProposalAnswer | null = null;
    let failure: string | undefined;
    try {
      answer = await s.call(boardSelectionCall, {
        subProblems: f.order.map((id) => {
          const sp = f.subProblems.find((x) => x.id === id)!;
          return { id, title: sp.title, goal: sp.goal, context: sp.context, domains: sp.domains, complexity: sp.complexity, seats: sizing.get(id)!.seats };
        }),
        pool: PERSONAS.map((p) => ({ code: p.code, summary: personaSummary(p) })),
      });
    } catch (err) {
      // A cancelled session stops here; any other failure leaves the board to the deterministic pick, which needs no model.
      if (err instanceof LlmError && err.kind === 'aborted') throw err;
      failure = err instanceof Error ? err.message : String(err);
    }
    const settled = settleBoard(answer, needs, (n) => sizing.get(n.id)!.seats, PERSONAS);
    const notes = [...needs.flatMap((n) => (sizing.get(n.id)!.note ? [`${n.id}: ${sizing.get(n.id)!.note}`] : [])), ...settled.notes];
    const board = boardOf(f.order, settled.panels, settled.picks);
    const selection = { by: answer ? ('model' as const) : ('fallback' as const), notes, ...(failure && { failure }) };
    return {
      result: board,
      events: [event('board.assembled', { members: board.members, panels: board.panels, picks: board.picks, selection })],
      patch: { phase: 'board', progress: { phase: 'board', percent: 15, total: f.order.length } },
    };
  });

  const review = await ask(e, 'board', 'board', () => {
    const seated = new Set(proposed.members.map((m) => m.code));
    return {
      prompt: `The board has ${proposed.members.length} experts. Continue, or remove, add or ask for a kind of expert.`,
      proposal: {
        members: proposed.members,
        panels: proposed.panels,
        picks: proposed.picks,
        available: PERSONAS.filter((p) => !seated.has(p.code)).map((p) => ({ code: p.code, name: p.name, title: p.title })),
      },
    };
  });
  if (review.action !== 'edit' || !review.board) return proposed;
  const edit = review.board;
  return e.run.step('board/edited', () => {
    // The resolved edit: wants are codes already (in `add`), and its scope is `subProblems`.
    const { panels } = applyBoardEdit(proposed, { remove: edit.remove, add: edit.add, sub_problems: edit.subProblems }, PERSONAS);
    // `picks` is absent from a board step stored before seats carried their own rationale.
    const picks = Object.fromEntries(
      Object.entries(panels).map(([id, codes]) => [id, codes.map((code) => proposed.picks?.[id]?.find((p) => p.code === code) ?? byPerson(code, edit))]),
    );
    const board = boardOf(f.order, panels, picks);
    const selection = { by: 'person' as const, notes: editNotes(edit) };
    return { result: board, events: [event('board.assembled', { members: board.members, panels, picks, selection })] };
  });
}

/** A seat the person added, with what they asked for when it came from a `want`. */
function byPerson(code: string, edit: ResolvedBoardEdit): PanelSeat {
  const p = persona(code);
  const wanted = edit.wanted?.find((w) => w.code === code);
  if (!wanted) return { code, rationale: `${p.title}: asked for by the person.`, by: 'person' };
  const close = wanted.close ?? true;
  const rationale = close
    ? `${p.title}: asked for by the person as "${wanted.want}".`
    : `${p.title}: the nearest the board has to "${wanted.want}", which no expert in the pool is; asked for by the person.`;
  return { code, rationale, by: 'person', wanted: { want: wanted.want, close } };
}

const editNotes = (edit: ResolvedBoardEdit) => [
  ...edit.remove.map((c) => `removed ${c} at the person's request`),
  ...edit.add.map((c) => {
    const w = edit.wanted?.find((x) => x.code === c);
    const where = edit.subProblems ? ` to ${edit.subProblems.join(', ')}` : '';
    if (!w) return `added ${c}${where} at the person's request`;
    return w.close === false
      ? `no expert in the pool has "${w.want}"; the nearest, ${w.name} (${w.title}), added${where}`
      : `"${w.want}" resolved to ${w.name} (${w.title}), added${where}`;
  }),
];

/** The board from its panels: members in order of first seat, each with the rationale of their first panel. */
function boardOf(order: string[], panels: Record<string, string[]>, picks: Record<string, PanelSeat[]>): Board {
  const codes = [...new Set(order.flatMap((id) => panels[id]!))];
  const members = codes.map((code) => {
    const p = persona(code);
    const on = order.filter((id) => panels[id]!.includes(code));
    const rationale = picks[on[0]!]!.find((s) => s.code === code)!.rationale;
    return { code, name: p.name, title: p.title, rationale, subProblems: on };
  });
  return { panels, members, picks };
}
