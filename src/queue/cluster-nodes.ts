/** Where a Redis Cluster (or Valkey cluster) is: the nodes to start from, and what every node expects of a client. */
export interface ClusterSeed {
  /** Any few nodes: the client learns the rest, and which node owns which slot, from them. */
  nodes: { host: string; port: number }[];
  username?: string;
  password?: string;
  /** `rediss://` entries: TLS to every node. */
  tls: boolean;
}

/**
 * Parses REDIS_CLUSTER_NODES: comma-separated `host:port` entries, or
 * `redis://` / `rediss://` URLs where credentials or TLS are needed. A cluster
 * has one ACL and one TLS setting for all its nodes, so they are read from the
 * first entry; a later entry may repeat them but not contradict them. A
 * cluster has database 0 only, so a URL naming another is refused rather than
 * silently ignored. Returns the problem as a string when there is one.
 */
export function parseClusterNodes(raw: string): ClusterSeed | string {
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (!entries.length) return 'must list at least one host:port';
  let seed: ClusterSeed | undefined;
  for (const entry of entries) {
    const withScheme = entry.includes('://') ? entry : `redis://${entry}`;
    if (!URL.canParse(withScheme)) return `"${entry}" is not host:port or a redis:// URL`;
    const url = new URL(withScheme);
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') return `"${entry}": the scheme must be redis:// or rediss://`;
    if (!url.hostname || !url.port) return `"${entry}" must name a host and a port`;
    if (!['', '/', '/0'].includes(url.pathname)) return `"${entry}": a cluster has database 0 only`;
    const node = { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port) };
    const username = url.username ? decodeURIComponent(url.username) : undefined;
    const password = url.password ? decodeURIComponent(url.password) : undefined;
    const tls = url.protocol === 'rediss:';
    if (!seed) {
      seed = { nodes: [node], tls, ...(username && { username }), ...(password && { password }) };
      continue;
    }
    if (tls !== seed.tls) return `"${entry}": every entry must use the same scheme (redis:// or rediss://)`;
    if ((username && username !== seed.username) || (password && password !== seed.password)) {
      return `"${entry}": credentials differ from the first entry's (a cluster has one set)`;
    }
    seed.nodes.push(node);
  }
  return seed!;
}

/** The nodes as `host:port,…`, for messages: never the credentials. */
export const describeSeed = (seed: ClusterSeed): string =>
  seed.nodes.map((n) => `${n.host.includes(':') ? `[${n.host}]` : n.host}:${n.port}`).join(',');
