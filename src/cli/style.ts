/** ANSI styling that collapses to plain text when colour is off: piped output carries no escape codes. */
export interface Style {
  readonly on: boolean;
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  cyan(s: string): string;
  /** A speaker label, `[Name]`, in the speaker's colour (spec 6.2: facilitator blue, experts yellow/green). */
  speaker(name: string): string;
}

const sgr = (open: number, close: number) => (s: string) => `\x1b[${open}m${s}\x1b[${close}m`;
const bold = sgr(1, 22);
const colour = (n: number) => sgr(n, 39);
// Yellows and greens first, as the spec asks for experts; more hues for larger boards.
const EXPERT_COLOURS = [33, 32, 93, 92, 35, 96, 95, 36].map(colour);

export function createStyle(on: boolean): Style {
  const assigned = new Map<string, (s: string) => string>();
  const pick = (name: string) => {
    if (name === 'FACILITATOR') return colour(34);
    if (name.startsWith('MODERATOR')) return colour(35);
    if (name.startsWith('RESEARCHER')) return colour(36);
    if (name === 'YOU') return colour(37);
    let c = assigned.get(name);
    if (!c) {
      c = EXPERT_COLOURS[assigned.size % EXPERT_COLOURS.length]!;
      assigned.set(name, c);
    }
    return c;
  };
  if (!on) {
    const id = (s: string) => s;
    return { on, bold: id, dim: id, red: id, cyan: id, speaker: (name) => `[${name}]` };
  }
  return {
    on,
    bold,
    dim: sgr(2, 22),
    red: colour(31),
    cyan: colour(36),
    speaker: (name) => bold(pick(name)(`[${name}]`)),
  };
}

/** Colour by default only for a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function wantColour(flag: boolean | undefined, isTty: boolean, env: Record<string, string | undefined>): boolean {
  if (flag !== undefined) return flag;
  return isTty && !env.NO_COLOR;
}
