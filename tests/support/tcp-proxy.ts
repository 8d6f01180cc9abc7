import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of the shared Postgres or Redis, to inject
 * outages into one stack without touching the server others use:
 * `freeze()` holds every byte both ways (a hung server: connections stay up,
 * nothing answers), `thaw()` delivers what was held, `cut()` drops every
 * connection and refuses new ones (a server that is down), `restore()`
 * listens again on the same port.
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly held: { to: Socket; chunk: Buffer }[] = [];
  private frozen = false;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** The target URL with its host and port replaced by the proxy's. */
  static async in(front: string): Promise<{ proxy: TcpProxy; url: string }> {
    const target = new URL(front);
    const proxy = new TcpProxy(target.hostname, Number(target.port));
    await proxy.listen();
    return { proxy, url: Object.assign(new URL(front), { hostname: '127.0.0.1', port: String(proxy.port) }).toString() };
  }

  async listen(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost);
      for (const [from, to] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        this.sockets.add(from);
        from.on('data', (chunk: Buffer) => (this.frozen ? this.held.push({ to, chunk }) : to.write(chunk)));
        from.on('error', () => to.destroy());
        from.on('close', () => {
          this.sockets.delete(from);
          to.destroy();
        });
      }
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  freeze(): void {
    this.frozen = true;
  }

  thaw(): void {
    this.frozen = false;
    for (const { to, chunk } of this.held.splice(0)) if (!to.destroyed) to.write(chunk);
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.held.length = 0;
    this.frozen = false;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  restore(): Promise<void> {
    return this.listen();
  }

  close(): Promise<void> {
    return this.cut();
  }
}
