import { boardSelectionCall, type BoardSelectionInput } from '../../calls/board';
import { selectBoard, type BoardProposalAnswer } from '../../domain/board';
import { personaByCode } from '../../domain/personas';
import { answer } from './answer';
import { clip } from './text';

/**
 * The simulated board proposes what the deterministic pick would, from the
 * pool it was shown (codes it does not know are skipped), so a simulated
 * session's board is the policy's own choice and every rationale reads as a
 * facilitator's sentence.
 */
function boardSelection(input: BoardSelectionInput): BoardProposalAnswer {
  const pool = input.pool.flatMap((p) => personaByCode(p.code) ?? []);
  return {
    panels: input.subProblems.map((sp) => ({
      subProblemId: sp.id,
      seats: selectBoard(pool, sp.domains, sp.seats, `${sp.title}\n${sp.goal}\n${sp.context}`).map((s) => ({ code: s.code, rationale: clip(s.rationale, 200) })),
    })),
  };
}

export const BOARD = [answer(boardSelectionCall, boardSelection)];
