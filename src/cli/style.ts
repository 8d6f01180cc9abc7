import { styleText } from 'node:util';

/** ANSI styling (node's util.styleText) that collapses to plain text when colour is off: piped output carries no escape codes. */
export interface Style {
  readonly on: boolean;
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  cyan(s: string): string;
  /** A speaker label, `[Name]`, in the speaker's colour (spec 6.2: facilitator blue, experts yellow/green). */
  speaker(name: string): string;
}

type Format = Parameters<typeof styleText>[0];
// Whether to colour is decided here (flags, terminal, NO_COLOR), so node must not second-guess it from the stream.
const paint = (format: Format) => (s: string) => styleText(format, s, { validateStream: false });
const bold = paint('bold');
// Yellows and greens first, as the spec asks for experts; more hues for larger boards.
const EXPERT_COLOURS = (['yellow', 'green', 'yellowBright', 'greenBright', 'magenta', 'cyanBright', 'magentaBright', 'cyan'] as const).map(paint);

export function createStyle(on: boolean): Style {
  const assigned = new Map<string, (s: string) => string>();
  const pick = (name: string) => {
    if (name === 'FACILITATOR') return paint('blue');
    if (name.startsWith('MODERATOR')) return paint('magenta');
    if (name.startsWith('RESEARCHER')) return paint('cyan');
    if (name === 'YOU') return paint('white');
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
    dim: paint('dim'),
    red: paint('red'),
    cyan: paint('cyan'),
    speaker: (name) => bold(pick(name)(`[${name}]`)),
  };
}

/** Colour by default only for a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function wantColour(flag: boolean | undefined, isTty: boolean, env: Record<string, string | undefined>): boolean {
  if (flag !== undefined) return flag;
  return isTty && !env.NO_COLOR;
}
