/**
 * BullMQ's key prefix (`<prefix>:<queue>:…`). In braces it is a Redis Cluster
 * hash tag: Redis hashes only what is inside, so every key of every queue
 * lands in one slot, as BullMQ's multi-key Lua scripts require on Redis
 * Cluster or Valkey cluster. BullMQ's own default, `bull`, has no tag.
 */
export const DEFAULT_QUEUE_PREFIX = '{bo1}';

/** A prefix with at most one non-empty hash tag, and nothing Redis key patterns or BullMQ's `:` separator would misread. */
export const QUEUE_PREFIX_PATTERN = /^[\w.-]*(\{[\w.-]+\})?[\w.-]*$/;
