import type { ModelCall } from '../../calls';
import type { Ctx } from './text';

/** One purpose's answer: the typed input of its catalogue call in, a value of its output type out. */
export type Answer = (input: unknown, c: Ctx) => unknown;

/**
 * Binds an answer to its catalogue declaration, so the input and output types
 * come from the call itself. The one cast is here: the gateway hands the
 * provider exactly the input the call was invoked with (`LlmRequest.input`).
 */
export const answer = <I, O>(call: ModelCall<I, O>, fn: (input: I, c: Ctx) => O): [string, Answer] => [call.purpose, (input, c) => fn(input as I, c)];
