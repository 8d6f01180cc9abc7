import semanticFile from '../data/harm-semantic.json' with { type: 'json' };
import { categoryVerdict, cuesWith, screenRequest, shippedScreen } from '../domain/harm-screen';
import { combine, harmSemanticFileSchema, readingWindows, readVectors, type Combined, type HarmSemanticModel } from '../domain/harm-semantic';
import type { Embedder } from '../ports/embeddings';

/**
 * The intake screen, run before any model call: the phrase rules
 * (src/domain/harm-screen.ts) and, when the sentence encoder is there, the
 * semantic layer (src/domain/harm-semantic.ts) over them. The encoder is
 * the one thing that can fail (a broken install, no memory): then the
 * rules screen alone, the failure is logged once, and intake goes on —
 * never a crash or an error for the person. The model's own screen in the
 * problem statement stays the second layer either way.
 */
export interface RequestScreen {
  screen(text: string): Promise<Combined>;
  /**
   * What a refusal of this screen does (HARM_SCREEN_FLAG): `refuse` ends the
   * session before any model call; `confirm` puts the finding to the model
   * at intake, whose judgement stands. Absent: `refuse`.
   */
  readonly onFlag?: 'refuse' | 'confirm';
}

/** The rules alone: the deterministic twin for tests, and HARM_SCREEN=rules. */
export const rulesOnlyScreen: RequestScreen = {
  screen: async (text) => ({ ...screenRequest(text), by: 'rules' }),
};

/** The same screen with what its refusal does set (HARM_SCREEN_FLAG). */
export const withFlag = (screen: RequestScreen, onFlag: 'refuse' | 'confirm'): RequestScreen => ({ screen: (text) => screen.screen(text), onFlag });

export interface SemanticScreenDeps {
  /** Resolves to the process's sentence encoder (loaded once); may reject. */
  encoder: () => Promise<Embedder>;
  /** The learnt layer; the shipped src/data/harm-semantic.json by default. */
  model?: HarmSemanticModel;
  warn: (message: string, extra: Record<string, unknown>) => void;
}

export interface SemanticScreen extends RequestScreen {
  /** Loads the encoder now (at start, so the first request does not wait): true when the semantic layer is on. */
  ready(): Promise<boolean>;
}

export function semanticRequestScreen(deps: SemanticScreenDeps): SemanticScreen {
  const model = deps.model ?? harmSemanticFileSchema.parse(semanticFile);
  const rules = shippedScreen();
  for (const category of Object.keys(model.centroids)) if (!rules.reasons.has(category)) throw new Error(`semantic model names unknown category ${category}`);
  let encoder: Promise<Embedder | null> | undefined;
  const load = () =>
    // Through then(), so an encoder factory that throws rather than rejects falls back too.
    (encoder ??= Promise.resolve()
      .then(() => deps.encoder())
      .then(
      (e) => {
        if (e.name === model.encoder && e.dimension === model.weights.length) return e;
        deps.warn('harm screen: the sentence encoder does not match the semantic model; screening with the rules alone', { encoder: e.name, model: model.encoder });
        return null;
      },
      (err: unknown) => {
        deps.warn('harm screen: the sentence encoder failed to load; screening with the rules alone', { err: String(err) });
        return null;
      },
    ));
  return {
    ready: async () => (await load()) !== null,
    async screen(text) {
      const byRules = screenRequest(text);
      if (text.trim() === '') return { ...byRules, by: 'rules' };
      const e = await load();
      if (!e) return { ...byRules, by: 'rules-only' };
      let vectors: number[][];
      try {
        vectors = await e.embed(readingWindows(text));
      } catch (err) {
        deps.warn('harm screen: the sentence encoder failed on a request; screened with the rules alone', { err: String(err) });
        return { ...byRules, by: 'rules-only' };
      }
      return combine(model, byRules, readVectors(model, vectors), cuesWith(rules, text), (c) => categoryVerdict(rules, c), rules.allowedReason);
    },
  };
}
