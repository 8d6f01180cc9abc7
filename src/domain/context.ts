import type { EngineSettings } from './settings';

/**
 * The "discussion so far" block of every expert prompt (seed 002, 4.5.8).
 * Short debates get the full transcript; past `summariseAfterRounds` the early
 * rounds shrink to their facilitator summaries, only the last
 * `fullRoundsKept` stay verbatim, and a key-arguments list leads as a memory
 * aid. Keeps prompt size bounded so late rounds do not lose the thread.
 */

const SUMMARY_CHARS = 280;
const ARGUMENT_CHARS = 200;
const MAX_ARGUMENTS = 5;

const cut = (text: string, max: number) => {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length <= max ? t : `${t.slice(0, max - 1).trimEnd()}…`;
};

interface RoundText {
  round: number;
  turns: { name: string; text: string }[];
  summary: string | null;
}

const full = (r: RoundText) => r.turns.map((t) => `[${t.name}, round ${r.round}] ${t.text.trim()}`).join('\n');

export function debateContext(rounds: RoundText[], keyArguments: string[], s: EngineSettings): string {
  if (!rounds.length) return '(you are opening the discussion)';
  if (rounds.length <= s.summariseAfterRounds) return rounds.map(full).join('\n\n');

  const early = rounds.slice(0, -s.fullRoundsKept);
  const recent = rounds.slice(-s.fullRoundsKept);
  const parts: string[] = [];
  const args = keyArguments.filter((a) => a.trim()).slice(0, MAX_ARGUMENTS);
  if (args.length) parts.push(['Key arguments so far:', ...args.map((a) => `- ${cut(a, ARGUMENT_CHARS)}`)].join('\n'));
  parts.push(
    early
      .map((r) => {
        const text = r.summary?.trim() || `${r.turns.map((t) => t.name).join(', ')} spoke (no summary recorded).`;
        return `Round ${r.round} (summary): ${cut(text, SUMMARY_CHARS)}`;
      })
      .join('\n'),
  );
  parts.push(...recent.map(full));
  return parts.join('\n\n');
}
