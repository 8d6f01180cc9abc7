import { formatAvailable, formatBoard, formatSubProblems, type Resolution } from './checkpoint-view';
import type { DialogIo } from './checkpoint-dialog';

type Data = Record<string, any>;
const CONTINUE: Resolution = { action: 'continue' };

/** Asks until `parse` returns an allowed resolution (null: ask again). */
export type Loop = (prompt: string, parse: (line: string) => Resolution | null) => Promise<Resolution>;

/** One entry of the `edit` body's list, as the API's document types it. */
type EditableSubProblem = NonNullable<Resolution['sub_problems']>[number];
type Domain = NonNullable<EditableSubProblem['domains']>[number];

/** The sub-problems editor: remove, merge, add, then the whole edited list (spec 6: "Continue? (yes/modify)"). */
export function subProblems(p: Data, io: DialogIo, loop: Loop): Promise<Resolution> {
  let items: EditableSubProblem[] = ((p.subProblems ?? []) as Data[]).map((s) => ({
    ...(s.id !== undefined && { id: String(s.id) }),
    title: String(s.title),
    goal: String(s.goal),
    ...(s.context !== undefined && { context: String(s.context) }),
    ...(typeof s.complexity === 'number' && { complexity: s.complexity }),
    // The server proposed these domains, so they are its own: sent back as they came.
    ...(Array.isArray(s.domains) && { domains: s.domains.map(String) as Domain[] }),
    depends_on: Array.isArray(s.dependsOn) ? s.dependsOn.map(String) : [],
  }));
  let changed = false;
  const show = () => io.say(formatSubProblems(items));
  const find = (ref: string | undefined) => {
    if (!ref) return -1;
    const byId = items.findIndex((s) => s.id?.toLowerCase() === ref.toLowerCase());
    if (byId >= 0) return byId;
    const n = Number(ref);
    return Number.isInteger(n) && n >= 1 && n <= items.length ? n - 1 : -1;
  };
  const drop = (index: number) => {
    const gone = items[index]!;
    items = items.filter((_, i) => i !== index);
    for (const s of items) s.depends_on = (s.depends_on ?? []).filter((d) => d !== gone.id);
    return gone;
  };
  show();
  io.say(io.style.dim('Commands: Enter/c send (continue if unchanged) · remove <id> · merge <id> <id> · add <title>: <goal> · list · done'));
  return loop('> ', (line) => {
    const [word = '', ...rest] = line.split(/\s+/);
    const cmd = word.toLowerCase();
    if (['', 'c', 'continue', 'done', 'd', 'y', 'yes'].includes(cmd)) return changed ? { action: 'edit', sub_problems: items } : CONTINUE;
    if (cmd === 'list' || cmd === 'l') {
      show();
      return null;
    }
    if (cmd === 'remove' || cmd === 'rm') {
      const i = find(rest[0]);
      if (i < 0) io.say(`No sub-problem "${rest[0] ?? ''}".`);
      else if (items.length === 1) io.say('At least one sub-problem must remain.');
      else {
        drop(i);
        changed = true;
        show();
      }
      return null;
    }
    if (cmd === 'merge') {
      const a = find(rest[0]);
      const b = find(rest[1]);
      if (a < 0 || b < 0 || a === b) {
        io.say('Usage: merge <id> <id> (two different sub-problems).');
        return null;
      }
      const first = items[a]!;
      const second = items[b]!;
      first.title = `${first.title} / ${second.title}`;
      first.goal = `${first.goal}; ${second.goal}`;
      if (second.context) first.context = [first.context, second.context].filter(Boolean).join('\n');
      if (second.complexity !== undefined) first.complexity = Math.max(first.complexity ?? 0, second.complexity);
      if (second.domains) first.domains = [...new Set([...(first.domains ?? []), ...second.domains])];
      const deps = new Set([...(first.depends_on ?? []), ...(second.depends_on ?? [])]);
      // Whatever depended on the absorbed one now depends on the merged one.
      for (const s of items) {
        if (s === first || s === second || !second.id || !s.depends_on?.includes(second.id)) continue;
        s.depends_on = [...new Set(s.depends_on.map((d) => (d === second.id ? (first.id ?? d) : d)))].filter((d) => d !== second.id);
      }
      items = items.filter((s) => s !== second);
      first.depends_on = [...deps].filter((d) => d !== first.id && d !== second.id);
      changed = true;
      show();
      return null;
    }
    if (cmd === 'add') {
      const text = rest.join(' ');
      const colon = text.indexOf(':');
      const title = (colon < 0 ? text : text.slice(0, colon)).trim();
      const goal = (colon < 0 ? '' : text.slice(colon + 1)).trim();
      if (!title || !goal) {
        io.say('Usage: add <title>: <goal>');
        return null;
      }
      items.push({ title, goal, depends_on: [] });
      changed = true;
      show();
      return null;
    }
    io.say('Commands: Enter/c send · remove <id> · merge <id> <id> · add <title>: <goal> · list · done');
    return null;
  });
}

/** A panel seats 2-5 experts (spec; checked again by the server). */
const MAX_PANEL = 5;
const panelFull = (panel: string) => `The panel of ${panel} already has ${MAX_PANEL} experts, the most it can seat: remove one first.`;

/** The board editor: remove, add from the available, want a kind of expert, and the panels the additions join. */
export function board(p: Data, io: DialogIo, loop: Loop): Promise<Resolution> {
  const members = (p.members ?? []) as Data[];
  const available = (p.available ?? []) as Data[];
  const remove = new Set<string>();
  const add = new Set<string>();
  const want: string[] = [];
  /** The sub-problems whose panels the additions join; every panel while empty. */
  let only: string[] = [];
  const isMember = (code: string) => members.some((m) => m.code === code);
  // The server refuses a panel of more than 5 experts; say so at once rather than after the whole edit is sent.
  const panels = Object.entries((p.panels ?? { board: members.map((m) => String(m.code)) }) as Record<string, string[]>);
  const fullPanel = (extra: number) =>
    panels.find(([id, codes]) => (!only.length || only.includes(id)) && new Set([...codes.filter((c) => !remove.has(c)), ...add]).size + want.length + extra > MAX_PANEL)?.[0];
  const pending = () =>
    io.say(
      io.style.dim(
        `Changes: ${[...[...remove].map((c) => `-${c}`), ...[...add].map((c) => `+${c}`), ...want.map((w) => `want "${w}"`)].join(', ') || 'none'}${only.length ? ` (additions to ${only.join(', ')} only)` : ''}`,
      ),
    );
  io.say(formatBoard(members));
  if (available.length) io.say(`Available: ${formatAvailable(available)}`);
  io.say(io.style.dim('Commands: Enter/c send (continue if unchanged) · remove <code> · add <code> · want <kind of expert> · only <sub-problem ids> · done'));
  return loop('> ', (line) => {
    const [word = '', ...rest] = line.split(/\s+/);
    const cmd = word.toLowerCase();
    const code = rest[0] ?? '';
    if (['', 'c', 'continue', 'done', 'd', 'y', 'yes'].includes(cmd)) {
      if (!remove.size && !add.size && !want.length) return CONTINUE;
      return {
        action: 'edit',
        board: {
          ...(remove.size && { remove: [...remove] }),
          ...(add.size && { add: [...add] }),
          ...(want.length && { want }),
          ...(only.length && (add.size || want.length) && { sub_problems: only }),
        },
      };
    }
    if (cmd === 'remove' || cmd === 'rm') {
      if (add.delete(code)) pending();
      else if (!isMember(code)) io.say(`"${code}" is not on the board.`);
      else {
        remove.add(code);
        pending();
      }
      return null;
    }
    if (cmd === 'add') {
      if (remove.delete(code)) pending();
      else if (isMember(code)) io.say(`"${code}" is already on the board.`);
      else if (available.length && !available.some((a) => a.code === code)) io.say(`"${code}" is not available. Available: ${formatAvailable(available)}`);
      else if (fullPanel(1)) io.say(panelFull(fullPanel(1)!));
      else {
        add.add(code);
        pending();
      }
      return null;
    }
    if (cmd === 'want') {
      const kind = rest.join(' ');
      if (!kind) io.say('Usage: want <kind of expert>, e.g. want legal');
      else if (fullPanel(1)) io.say(panelFull(fullPanel(1)!));
      else {
        want.push(kind);
        pending();
      }
      return null;
    }
    if (cmd === 'only') {
      const ids = rest.filter(Boolean);
      const unknown = ids.find((id) => !panels.some(([panel]) => panel === id));
      if (unknown) io.say(`"${unknown}" is not a sub-problem here. Sub-problems: ${panels.map(([id]) => id).join(', ')}`);
      else {
        // `only` with no ids: additions join every panel again.
        only = ids;
        pending();
      }
      return null;
    }
    io.say('Commands: Enter/c send · remove <code> · add <code> · want <kind of expert> · only <sub-problem ids> · done');
    return null;
  });
}
