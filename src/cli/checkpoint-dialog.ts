import type { Style } from './style';
import { board, subProblems } from './checkpoint-editors';
import { formatRoundEnd, formatStatement, type CheckpointRequest, type Resolution } from './checkpoint-view';

type Data = Record<string, any>;

/** What a dialog needs: a question-asker (null = input ended), an output, and the request's context. */
export interface DialogIo {
  ask(prompt: string): Promise<string | null>;
  say(text: string): void;
  style: Style;
  /** "Sub-problem 2 of 4: Title", from the events so far. */
  progress(subProblemId: string): string;
}

/** Input ended in the middle of a dialog: the caller continues with what was proposed. */
export class EndOfInput extends Error {}

const CONTINUE: Resolution = { action: 'continue' };

/**
 * Asks the user about one checkpoint, the spec's console way, and returns the
 * answer to send. Any action the checkpoint does not allow is refused here and
 * asked again, so the server's 422 is the exception, not the loop.
 */
export async function runDialog(cp: CheckpointRequest, io: DialogIo): Promise<Resolution> {
  const allowed = (action: string) => action === 'continue' || cp.actions.length === 0 || cp.actions.includes(action);
  const ask = async (prompt: string) => {
    const line = await io.ask(io.style.bold(prompt));
    if (line === null) throw new EndOfInput();
    return line.trim();
  };
  /** Asks until `parse` returns an allowed resolution. */
  const loop = async (prompt: string, parse: (line: string) => Promise<Resolution | null> | Resolution | null) => {
    for (;;) {
      const r = await parse(await ask(prompt));
      if (!r) continue;
      if (allowed(r.action)) return r;
      io.say(`"${r.action.replace(/_/g, ' ')}" is not available at this checkpoint (allowed: ${cp.actions.join(', ')}).`);
    }
  };
  io.say(`\n${io.style.bold(`? ${cp.prompt}`)}`);
  const p = cp.proposal;
  switch (cp.kind) {
    case 'clarification':
      return clarification(p, io, ask);
    case 'statement':
      io.say(formatStatement(p));
      return loop('Enter to confirm, or type a new statement > ', (line) => (line ? { action: 'edit', statement: line } : CONTINUE));
    case 'sub_problems':
      return subProblems(p, io, loop);
    case 'board':
      return board(p, io, loop);
    case 'round_end':
      io.say(`${formatRoundEnd(p, cp.prompt)}${p.subProblemId ? `\n(${io.progress(String(p.subProblemId))})` : ''}`);
      return loop('[c]ontinue, [v]ote now, [i]ntervene, [f]inal > ', async (line) => {
        const [word = '', ...rest] = line.split(/\s+/);
        switch (word.toLowerCase()) {
          case '':
          case 'c':
          case 'continue':
          case 'y':
          case 'yes':
            return CONTINUE;
          case 'v':
          case 'vote':
            return { action: 'skip_to_vote' };
          case 'f':
          case 'final':
            return { action: 'skip_to_final' };
          case 'i':
          case 'intervene': {
            if (!allowed('intervene')) return { action: 'intervene' };
            const message = rest.join(' ') || (await ask('Your message to the board > '));
            if (!message) {
              io.say('No message given: nothing sent.');
              return null;
            }
            return { action: 'intervene', message };
          }
          default:
            io.say('Answer c, v, i (or "i <message>") or f.');
            return null;
        }
      });
    case 'next_sub_problem': {
      const next = (p.next ?? {}) as Data;
      if (!cp.prompt.includes('Next:')) io.say(`Next: ${next.title ?? next.id} (${p.done} of ${p.total} sub-problems decided)`);
      return loop('[c]ontinue, [f]inal > ', (line) => {
        const word = line.split(/\s+/)[0]?.toLowerCase() ?? '';
        if (['', 'c', 'continue', 'y', 'yes'].includes(word)) return CONTINUE;
        if (word === 'f' || word === 'final') return { action: 'skip_to_final' };
        io.say('Answer c or f.');
        return null;
      });
    }
    default:
      // A kind this client does not know yet: the one answer every checkpoint accepts.
      return loop('Enter to continue > ', () => CONTINUE);
  }
}

async function clarification(p: Data, io: DialogIo, ask: (prompt: string) => Promise<string>): Promise<Resolution> {
  const questions = (p.questions ?? []) as Data[];
  const answers: Record<string, string> = {};
  for (const [i, q] of questions.entries()) {
    io.say(`Question ${i + 1} of ${questions.length}: ${q.question}`);
    if (q.why) io.say(`  Why it matters: ${q.why}`);
    if (q.assumption) io.say(`  If unanswered, the board assumes: ${q.assumption}`);
    const answer = await ask('Your answer (Enter keeps the assumption) > ');
    if (answer) answers[String(q.id)] = answer;
  }
  return Object.keys(answers).length ? { action: 'answer', answers } : CONTINUE;
}
