import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config';
import { describeSeed, parseClusterNodes } from '../../src/queue/cluster-nodes';
import { failedNodes } from '../../src/queue/redis-ready';

describe('REDIS_CLUSTER_NODES', () => {
  it('is unset by default: one Redis at REDIS_URL', () => {
    expect(loadConfig({}, {}).REDIS_CLUSTER_NODES).toBeUndefined();
  });

  it('takes host:port entries, spaces and IPv6 brackets allowed', () => {
    expect(loadConfig({}, { REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-2.internal:7001,[::1]:7002' }).REDIS_CLUSTER_NODES).toEqual({
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'redis-2.internal', port: 7001 },
        { host: '::1', port: 7002 },
      ],
      tls: false,
    });
  });

  it('reads credentials and TLS from the first URL entry, decoded; later entries may repeat them', () => {
    const seed = parseClusterNodes('rediss://app:p%40ss@a.example:6380,rediss://b.example:6380,rediss://app:p%40ss@c.example:6380/0');
    expect(seed).toEqual({
      nodes: [
        { host: 'a.example', port: 6380 },
        { host: 'b.example', port: 6380 },
        { host: 'c.example', port: 6380 },
      ],
      username: 'app',
      password: 'p@ss',
      tls: true,
    });
    // Messages name the nodes, never the password.
    expect(describeSeed(seed as Exclude<typeof seed, string>)).toBe('a.example:6380,b.example:6380,c.example:6380');
  });

  it.each([
    ['', /at least one/],
    [' , ', /at least one/],
    ['10.0.0.1', /host and a port/],
    ['http://10.0.0.1:7000', /redis:\/\/ or rediss:\/\//],
    ['redis://10.0.0.1:7000/2', /database 0 only/],
    ['redis://a:7000,rediss://b:7000', /same scheme/],
    ['redis://u:one@a:7000,redis://u:two@b:7000', /credentials differ/],
    ['a:b:c', /not host:port/],
  ])('refuses %j, naming the variable', (raw, why) => {
    expect(() => loadConfig({}, { REDIS_CLUSTER_NODES: raw || ' ' })).toThrow(/REDIS_CLUSTER_NODES/);
    expect(parseClusterNodes(raw)).toMatch(why);
  });
});

describe('failedNodes (what readiness names when cluster_state is not ok)', () => {
  it('lists the nodes CLUSTER NODES flags fail or fail?, without their bus port', () => {
    const nodes = [
      '0bcd 127.0.0.1:17103@17203 master,fail - 1795605733587 1795605733000 3 disconnected 10923-16383',
      '7f89 127.0.0.1:17102@17202 master,fail? - 0 1795605734590 2 connected 5461-10922',
      '0ed3 127.0.0.1:17101@17201 myself,master - 0 1795605732000 1 connected 0-5460',
      '',
    ].join('\n');
    expect(failedNodes(nodes)).toEqual(['127.0.0.1:17103', '127.0.0.1:17102']);
    expect(failedNodes('')).toEqual([]);
  });
});
