import type { Envelope } from './api';
import { transcriptEntries, type TranscriptEntry } from '../domain/transcript';
import type { Style } from './style';

type Data = Record<string, unknown>;

/**
 * The live console view of a session: keeps every event received, renders
 * them with the transcript's pure `transcriptEntries` (the same sections,
 * labels and wording as the Markdown transcript) and prints only entries newer
 * than the last printed, so a replayed or re-delivered event never prints
 * twice. Checkpoint events are left to the checkpoint prompts.
 */
export class Renderer {
  private readonly events: Envelope[] = [];
  private readonly bySeq = new Map<number, Envelope>();
  private printed: number;
  private subProblem: string | null = null;

  constructor(
    private readonly write: (s: string) => void,
    private readonly style: Style,
    /** Entries up to this seq are context only (attach --after). */
    after = 0,
  ) {
    this.printed = after;
  }

  add(e: Envelope): void {
    if (this.bySeq.has(e.seq)) return;
    this.events.push(e);
    this.bySeq.set(e.seq, e);
  }

  /** Prints every entry not printed yet. */
  flush(): void {
    const fresh = transcriptEntries(this.events, 'standard').filter((x) => x.seq > this.printed);
    for (const entry of fresh) {
      const source = this.bySeq.get(entry.seq);
      // The brief heads the Markdown document; live, the recommendation it condenses prints just before it.
      if (source?.type.startsWith('checkpoint.') || entry.kind === 'brief') continue;
      this.write(this.format(entry, source));
    }
    const newest = this.events.at(-1)?.seq ?? 0;
    if (newest > this.printed) this.printed = newest;
  }

  /** Sub-problem i of n, from the latest decomposition (a checkpoint edit makes a new one). */
  progress(subProblemId: string): string {
    const decomposition = this.events.findLast((e) => e.type === 'decomposition.completed');
    const list = ((decomposition?.data as Data | undefined)?.subProblems ?? []) as Data[];
    const index = list.findIndex((s) => s.id === subProblemId);
    const n = index >= 0 ? index + 1 : Number(subProblemId.replace(/\D/g, '')) || 1;
    const title = index >= 0 ? String(list[index]!.title) : '';
    return `Sub-problem ${n} of ${list.length || n}${title ? `: ${title}` : ''}`;
  }

  private format(entry: TranscriptEntry, source: Envelope | undefined): string {
    const s = this.style;
    const lines: string[] = [];
    const sp = typeof source?.data.subProblemId === 'string' ? source.data.subProblemId : null;
    if (entry.section) lines.push('', s.bold(`=== ${entry.section} ===`), '');
    if (entry.kind === 'subproblem' && sp) this.subProblem = sp;
    if (entry.kind === 'round' && sp) {
      // Independent sub-problems debate concurrently: every round line says which one it belongs to.
      this.subProblem = sp;
      lines.push(s.cyan(`${entry.text} · ${this.progress(sp).replace(/:.*/, '')}`), '');
      return lines.join('\n') + '\n';
    }
    if (sp && entry.kind !== 'subproblem' && sp !== this.subProblem) {
      this.subProblem = sp;
      lines.push(s.dim(`(${this.progress(sp)})`), '');
    }
    const warning = entry.kind === 'failed' || entry.kind === 'cancelled' || entry.kind === 'refused';
    if (entry.kind === 'disclaimer') return `${s.red(`Note: ${entry.text}`)}\n\n`;
    const text = entry.text
      .split('\n')
      .map((line) => (warning || line.startsWith('Note: ') ? s.red(line) : line))
      .join('\n');
    lines.push(entry.speaker ? `${s.speaker(entry.speaker)} ${text}` : text, '');
    if (entry.kind === 'problem' && source?.data.provider === 'simulated') lines.push(s.dim('(simulated board: no model is called)'), '');
    return lines.join('\n') + '\n';
  }
}
