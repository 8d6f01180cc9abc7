import type { Config } from '../config/config';
import type { LlmProvider } from '../ports/llm';
import { createAnthropicProvider } from './anthropic/anthropic-provider';
import { LlmGateway } from './gateway';
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
  return createSimulatedProvider({ latencyMs: config.SIM_LATENCY_MS, jitter: config.SIM_JITTER });
}

export function createGateway(config: Config, provider: LlmProvider = createProvider(config)): LlmGateway {
  return new LlmGateway(provider, {
    models: { fast: config.MODEL_FAST, smart: config.MODEL_SMART },
    prices: config.PRICE_TABLE,
  });
}
