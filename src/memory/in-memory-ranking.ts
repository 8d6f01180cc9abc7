/**
 * The in-memory twins' stand-in for full-text search, shared so memories and
 * lessons rank alike: a query's words (4+ letters, roughly what English
 * stemming keeps) and what each one found in a row's text adds to its cosine.
 */
export const SUBSTRING_BONUS = 0.1;

export const queryWords = (text: string): string[] => [...new Set(text.toLowerCase().match(/[a-z][a-z0-9'-]{3,}/g) ?? [])];
