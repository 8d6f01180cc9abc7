import { selectBoard } from '../../domain/board';
import { event } from '../../domain/events';
import type { Persona } from '../../domain/model';
import { PERSONAS } from '../../domain/personas';
import { bandOf } from '../../domain/settings';
import { persona, type Engine, type Framing } from './context';

export interface Board {
  /** Persona codes per sub-problem. */
  panels: Record<string, string[]>;
  members: { code: string; name: string; title: string; rationale: string; subProblems: string[] }[];
}

/**
 * Each sub-problem gets its own panel, chosen for its domains and for
 * diversity, sized by its complexity; the session's board is the union. An
 * expert can sit on some sub-problems and not others.
 */
export async function assembleBoard(e: Engine, f: Framing): Promise<Board> {
  return e.run.step('board', () => {
    const panels: Record<string, string[]> = {};
    const picks: Record<string, { code: string; rationale: string }[]> = {};
    for (const id of f.order) {
      const sp = f.subProblems.find((x) => x.id === id)!;
      const seats = selectBoard(PERSONAS as Persona[], sp.domains, e.settings.panelSize[bandOf(sp.complexity)]);
      panels[id] = seats.map((s) => s.code);
      picks[id] = seats;
    }
    const codes = [...new Set(f.order.flatMap((id) => panels[id]!))];
    const members = codes.map((code) => {
      const p = persona(code);
      const on = f.order.filter((id) => panels[id]!.includes(code));
      const first = picks[on[0]!]!.find((s) => s.code === code)!;
      return { code, name: p.name, title: p.title, rationale: first.rationale, subProblems: on };
    });
    const board: Board = { panels, members };
    return {
      result: board,
      events: [event('board.assembled', { members, panels, picks })],
      patch: { phase: 'board', progress: { phase: 'board', percent: 15, total: f.order.length } },
    };
  });
}
