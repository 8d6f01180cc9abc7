import type { Config } from '../config/config';
import type { LlmProvider } from '../ports/llm';
import { createAnthropicProvider } from './anthropic/anthropic-provider';
import { LlmGateway } from './gateway';
import { createOpenAiProvider } from './openai/openai-provider';
import { createSimulatedProvider } from './simulated/simulated-provider';

export function createProvider(config: Config): LlmProvider {
  if (config.LLM_PROVIDER === 'anthropic') {
    return createAnthropicProvider({
      apiKey: config.ANTHROPIC_API_KEY!,
      ...(config.ANTHROPIC_BASE_URL && { baseURL: config.ANTHROPIC_BASE_URL }),
      maxRetries: config.ANTHROPIC_MAX_RETRIES,
      timeoutMs: config.ANTHROPIC_TIMEOUT_MS,
    });
  }
  if (config.LLM_PROVIDER === 'openai') {
    return createOpenAiProvider({
      // Local servers ignore the key, but the SDK refuses to start without one.
      apiKey: config.OPENAI_API_KEY ?? 'unused',
      ...(config.OPENAI_BASE_URL && { baseURL: config.OPENAI_BASE_URL }),
      maxRetries: config.OPENAI_MAX_RETRIES,
      timeoutMs: config.OPENAI_TIMEOUT_MS,
      structured: config.OPENAI_STRUCTURED,
      maxTokensField: config.OPENAI_MAX_TOKENS_FIELD,
    });
  }
  return createSimulatedProvider({ latencyMs: config.SIM_LATENCY_MS, jitter: config.SIM_JITTER });
}

export function createGateway(config: Config, provider: LlmProvider = createProvider(config)): LlmGateway {
  return new LlmGateway(provider, {
    models: { fast: config.MODEL_FAST, smart: config.MODEL_SMART },
    prices: config.PRICE_TABLE,
  });
}
