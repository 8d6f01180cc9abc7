import { availableProviders, minCacheableTokens, priceFor, type Config } from '../config/config';
import type { LlmProvider, ProviderName } from '../ports/llm';
import { createAnthropicProvider } from './anthropic/anthropic-provider';
import { LlmGateway } from './gateway';
import { createOpenAiProvider } from './openai/openai-provider';
import { createSimulatedProvider, simulatedPromptCache } from './simulated/simulated-provider';

/** The adapter for one provider, as configured; adapters are cheap (a client per call), so building one costs nothing. */
function createNamedProvider(config: Config, name: ProviderName): LlmProvider {
  if (name === 'anthropic') {
    return createAnthropicProvider({
      apiKey: config.ANTHROPIC_API_KEY!,
      ...(config.ANTHROPIC_BASE_URL && { baseURL: config.ANTHROPIC_BASE_URL }),
      maxRetries: config.ANTHROPIC_MAX_RETRIES,
      timeoutMs: config.ANTHROPIC_TIMEOUT_MS,
    });
  }
  if (name === 'openai') {
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
  // A bare model id on the simulated board stands for the real model: its cache minimum is that model's.
  const minTokens = (model: string) => minCacheableTokens(priceFor(config.PRICE_TABLE, 'simulated', model), model);
  return createSimulatedProvider({ latencyMs: config.SIM_LATENCY_MS, jitter: config.SIM_JITTER, cache: simulatedPromptCache(minTokens) });
}

/** The default provider (LLM_PROVIDER): what answers every call no model reference sends elsewhere. */
export function createProvider(config: Config): LlmProvider {
  return createNamedProvider(config, config.LLM_PROVIDER);
}

/**
 * The gateway over the default provider, with every other configured provider
 * at hand for model references that name it (`openai:…` on an anthropic
 * deployment, `simulated:…` anywhere).
 */
export function createGateway(config: Config, provider: LlmProvider = createProvider(config)): LlmGateway {
  const others: Partial<Record<ProviderName, LlmProvider>> = {};
  for (const name of availableProviders(config) as Set<ProviderName>) if (name !== provider.name) others[name] = createNamedProvider(config, name);
  return new LlmGateway(provider, {
    models: { fast: config.MODEL_FAST, smart: config.MODEL_SMART },
    prices: config.PRICE_TABLE,
    ...(config.MODELS && { routing: config.MODELS }),
    providers: others,
    breaker: { consecutiveFailures: config.MODEL_CIRCUIT_FAILURES, halfOpenAfterMs: config.MODEL_CIRCUIT_RESET_MS },
  });
}
