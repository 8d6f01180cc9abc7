/**
 * Escalation disclaimers as the event log, the transcript and the results
 * carry them (seed 002, 4.5.11): the standard advisory sentence of each kind,
 * and, where the model named them, the specific acts that need a
 * professional. Pure and dependency-free, so the console and the transcript
 * can read them; which disclaimers a piece of advice needs is decided in
 * guardrails.ts (`disclaimersFor`).
 */

export type DisclaimerKind = 'legal' | 'medical' | 'financial' | 'safety' | 'irreversible';

/** Escalation disclaimers, in advisory language (they pass `lintAdvisory`). */
export const DISCLAIMERS: Record<DisclaimerKind, string> = {
  legal:
    'This is not legal advice; consider consulting a qualified lawyer before signing agreements, changing ownership or acting on legal or regulatory questions.',
  medical:
    'This is not medical advice; consider consulting a qualified health professional before making decisions that affect your health or anyone else’s.',
  financial:
    'This is not financial or investment advice and no returns are guaranteed; consider consulting a qualified financial advisor or accountant before committing funds.',
  safety:
    'This decision may have physical safety implications; consider consulting a qualified safety professional and the applicable safety rules before acting.',
  irreversible:
    'This decision is hard to reverse (a one-way door); consider taking time to review the alternatives and seeking professional advice before committing.',
};

/**
 * A kind's lead when the model named the acts that need a professional: the same advisory "not … advice", then the
 * acts themselves, instead of the standard sentence's general list (a trial read "before signing agreements, changing
 * ownership …" above its own reseller agreement as boilerplate). `irreversible` has no acts.
 */
export const SPECIFIC_LEADS: Record<Exclude<DisclaimerKind, 'irreversible'>, string> = {
  legal: 'This is not legal advice; before acting on the plan, consider these steps:',
  medical: 'This is not medical advice; before acting on the plan, consider these steps:',
  // Not "no returns are guaranteed": the acts are a tax set-aside or a loan's terms more often than an investment (a trial read it so).
  financial: 'This is not financial, tax or investment advice; before acting on the plan, consider these steps:',
  safety: 'This plan may have physical safety implications; before acting on it, consider these steps:',
};

export const DISCLAIMER_ORDER: readonly DisclaimerKind[] = ['legal', 'medical', 'financial', 'safety', 'irreversible'];

/** An escalation disclaimer: its kind, its text, and, when the model named them, the specific acts it covers. */
export interface Disclaimer {
  kind: DisclaimerKind;
  text: string;
  /** What the model said needs a professional (`beyondGeneralGuidance`), as the text quotes it; absent for a keyword or one-way-door disclaimer. */
  acts?: string[];
}

/** Two acts are one when they read the same, case, spacing and punctuation aside. */
export const actKey = (act: string) => act.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/** The acts, each once (by `actKey`), in the order first named. */
export const distinctActs = (acts: readonly string[]) => [...new Map(acts.filter(Boolean).map((a) => [actKey(a), a] as const)).values()];

/** A kind's disclaimer as the specific acts the advice involves, after the kind's lead. */
export function specificDisclaimer(kind: DisclaimerKind, acts: string[]): Disclaimer {
  const lead = kind === 'irreversible' ? DISCLAIMERS.irreversible : SPECIFIC_LEADS[kind];
  return { kind, text: `${lead} ${acts.join('; ')}.`, acts };
}

/** What a later part of the advice adds to a disclaimer already said: its new acts alone. */
export const disclaimerAddendum = (kind: string, acts: readonly string[]) => `Also beyond general guidance (${kind}): ${acts.join('; ')}.`;

/**
 * The disclaimers of several parts of the advice (the sub-problems, then the
 * final recommendation) as one list: one per kind, in the standard order; a
 * kind any part named specific acts for carries every distinct act, and
 * otherwise reads the standard sentence.
 */
export function mergeDisclaimers(lists: readonly (readonly Disclaimer[])[]): Disclaimer[] {
  const byKind = new Map<DisclaimerKind, { text: string; acts: string[] }>();
  for (const d of lists.flat()) {
    const had = byKind.get(d.kind);
    if (!had) byKind.set(d.kind, { text: d.text, acts: [...(d.acts ?? [])] });
    else had.acts.push(...(d.acts ?? []));
  }
  return DISCLAIMER_ORDER.flatMap((kind) => {
    const d = byKind.get(kind);
    if (!d) return [];
    const acts = distinctActs(d.acts);
    return [acts.length ? specificDisclaimer(kind, acts) : { kind, text: d.text }];
  });
}
