import { selectBoard } from '../../domain/board';
import { applyBoardEdit } from '../../domain/checkpoints';
import { event } from '../../domain/events';
import type { Persona } from '../../domain/model';
import { PERSONAS } from '../../domain/personas';
import { bandOf } from '../../domain/settings';
import { ask } from './checkpoints';
import { persona, type Engine, type Framing } from './context';

export interface Board {
  /** Persona codes per sub-problem. */
  panels: Record<string, string[]>;
  members: { code: string; name: string; title: string; rationale: string; subProblems: string[] }[];
}

/**
 * Each sub-problem gets its own panel, chosen for its domains and for
 * diversity, sized by its complexity; the session's board is the union. An
 * expert can sit on some sub-problems and not others. In interactive mode
 * the person may then swap, remove or ask for a kind of expert.
 */
export async function assembleBoard(e: Engine, f: Framing): Promise<Board> {
  const proposed = await e.run.step('board', () => {
    const panels: Record<string, string[]> = {};
    const picks: Record<string, { code: string; rationale: string }[]> = {};
    for (const id of f.order) {
      const sp = f.subProblems.find((x) => x.id === id)!;
      const seats = selectBoard(PERSONAS as Persona[], sp.domains, e.settings.panelSize[bandOf(sp.complexity)]);
      panels[id] = seats.map((s) => s.code);
      picks[id] = seats;
    }
    const board = boardOf(f.order, panels, (code, on) => picks[on[0]!]!.find((s) => s.code === code)!.rationale);
    return {
      result: board,
      events: [event('board.assembled', { members: board.members, panels, picks })],
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
        available: PERSONAS.filter((p) => !seated.has(p.code)).map((p) => ({ code: p.code, name: p.name, title: p.title })),
      },
    };
  });
  if (review.action !== 'edit' || !review.board) return proposed;
  const edit = review.board;
  return e.run.step('board/edited', () => {
    const { panels } = applyBoardEdit(proposed, edit, PERSONAS);
    const earlier = new Map(proposed.members.map((m) => [m.code, m.rationale]));
    const board = boardOf(f.order, panels, (code) => earlier.get(code) ?? `${persona(code).title}: asked for by the person.`);
    const picks = Object.fromEntries(Object.entries(panels).map(([id, codes]) => [id, codes.map((code) => ({ code, rationale: earlier.get(code) ?? 'asked for by the person' }))]));
    return { result: board, events: [event('board.assembled', { members: board.members, panels, picks })] };
  });
}

function boardOf(order: string[], panels: Record<string, string[]>, rationale: (code: string, on: string[]) => string): Board {
  const codes = [...new Set(order.flatMap((id) => panels[id]!))];
  const members = codes.map((code) => {
    const p = persona(code);
    const on = order.filter((id) => panels[id]!.includes(code));
    return { code, name: p.name, title: p.title, rationale: rationale(code, on), subProblems: on };
  });
  return { panels, members };
}
