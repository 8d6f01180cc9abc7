/**
 * A cheap, deterministic token estimate for prompt budgets. Memory blocks are
 * injected into every agent prompt, so their size must be bounded without a
 * tokenizer round-trip: ≈ 4 characters per token is the usual rule of thumb
 * for English with Claude-family tokenizers, and ceil keeps it conservative.
 *
 * The estimate is on UTF-16 code units (String.length), which slightly
 * over-counts non-BMP text — the safe direction for a cap.
 */

const CHARS_PER_TOKEN = 4;
const ELLIPSIS = '…';

/** ≈ chars/4, rounded up; 0 for ''. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** The most characters a text may have and still estimate at ≤ maxTokens. */
export function charBudget(maxTokens: number): number {
  return Math.max(0, Math.floor(maxTokens)) * CHARS_PER_TOKEN;
}

/**
 * The text itself when it fits; otherwise cut at the last word boundary that
 * leaves room for '…' (a hard cut inside the word when a single word is longer
 * than the budget). The result never estimates above maxTokens; ≤ 0 → ''.
 */
export function clipToTokens(text: string, maxTokens: number): string {
  const budget = charBudget(maxTokens);
  if (text.length <= budget) return text;
  if (budget <= ELLIPSIS.length) return '';
  let limit = budget - ELLIPSIS.length;
  // Never split a surrogate pair: a lone surrogate is invalid text in a prompt.
  if (isHighSurrogate(text.charCodeAt(limit - 1))) limit -= 1;
  let cut = text.slice(0, limit);
  // Already at a boundary when the next character is whitespace; else back off to the last space.
  if (!/\s/.test(text.charAt(limit))) {
    const lastSpace = lastWhitespace(cut);
    if (lastSpace > 0) cut = cut.slice(0, lastSpace);
  }
  cut = cut.replace(/[\s,;:–—-]+$/u, '');
  if (cut.length === 0) cut = text.slice(0, limit).trimEnd();
  return cut.length === 0 ? '' : cut + ELLIPSIS;
}

/** Says that a text was cut: better than a bare '…', which reads like the person trailed off. */
export const SHORTENED = ' [shortened]';

/**
 * The text itself when it fits; otherwise its longest prefix that ends at a
 * sentence end (., ! or ?, with any closing quote or bracket) and leaves room
 * for SHORTENED, which is appended. A first sentence too long for the budget
 * is cut at a word boundary instead, still marked. Never estimates above
 * maxTokens; '' when not even the marker fits.
 */
export function clipToSentence(text: string, maxTokens: number): string {
  const budget = charBudget(maxTokens);
  if (text.length <= budget) return text;
  const room = budget - SHORTENED.length;
  if (room <= 0) return '';
  let end = 0;
  for (const m of text.matchAll(/[.!?]+["'”’)\]]*(?=\s|$)/gu)) {
    const at = m.index + m[0].length;
    if (at > room) break;
    end = at;
  }
  if (end > 0) return text.slice(0, end) + SHORTENED;
  const word = clipToTokens(text, Math.floor(room / CHARS_PER_TOKEN)).replace(/…$/u, '').replace(/[\s,;:–—-]+$/u, '');
  return word ? word + SHORTENED : '';
}

/** Where the last whitespace is (-1 for none): a backward scan, where /\s\S*$/ tried every whitespace from the start. */
function lastWhitespace(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) if (WHITESPACE.test(text[i]!)) return i;
  return -1;
}
const WHITESPACE = /\s/;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
