import rulesFile from '../data/harm-screen.json' with { type: 'json' };

/**
 * The kinds of harm the service refuses, one list for both layers: the rules
 * file's categories (src/data/harm-screen.json) name the screen's refusals,
 * and the intake prompt lists them for the model's own screen, which names
 * one in `safety.category` when it refuses.
 */
export type HarmCategory = keyof typeof rulesFile.categories;
export const HARM_CATEGORIES = Object.keys(rulesFile.categories) as [HarmCategory, ...HarmCategory[]];

/** The categories as the intake prompt lists them: "`violence`: hurting or threatening someone; …". */
export const harmCategoryGuide = (): string =>
  Object.entries(rulesFile.categories)
    .map(([id, c]) => `\`${id}\`: ${c.what}`)
    .join('; ');
