import net from 'node:net';

/** What the proxy does with traffic. */
export type ProxyMode = 'pass' | 'refuse' | 'blackhole';

/** One client connection and the upstream connection it is forwarded to. */
interface Link {
  client: net.Socket;
  upstream: net.Socket | undefined;
}

/**
 * A TCP proxy in front of a server (PostgreSQL, Redis) that simulates the network faults a
 * dependency can have:
 *
 * - `pass`: connections are forwarded both ways;
 * - `refuse`: the port is closed (new connections get ECONNREFUSED) and open connections are reset,
 *   as when the server is down;
 * - `blackhole`: the port accepts connections and keeps every socket open, but nothing is forwarded
 *   in either direction, on new or open connections — a partitioned network or a frozen server.
 *
 * Going back to `pass` resets the connections held in the blackhole (as a firewall that lost its
 * state answers a late packet), so clients that did not notice the blackhole on their own learn of
 * it on their next use; new connections are forwarded again.
 */
export class TcpProxy {
  private server: net.Server | undefined;
  private readonly links = new Set<Link>();
  private mode: ProxyMode = 'pass';

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
    public port: number,
  ) {}

  /** Starts a proxy on a free port of 127.0.0.1 forwarding to `host:port`. */
  static async start(host: string, port: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(host, port, 0);
    await proxy.listen();
    return proxy;
  }

  /** Starts a proxy in front of the server a `postgres://` or `redis://` URL names. */
  static async forUrl(url: string): Promise<TcpProxy> {
    const parsed = new URL(url);
    const defaultPort = parsed.protocol.startsWith('redis') ? 6379 : 5432;
    return TcpProxy.start(parsed.hostname || '127.0.0.1', Number(parsed.port || defaultPort));
  }

  /** `url` with its host and port replaced by the proxy's. */
  proxied(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /** The current mode. */
  get current(): ProxyMode {
    return this.mode;
  }

  /** Forwards traffic again. */
  async pass(): Promise<void> {
    if (this.mode === 'blackhole') this.resetAll();
    this.mode = 'pass';
    if (!this.server) await this.listen();
  }

  /** Closes the port and resets open connections. */
  async refuse(): Promise<void> {
    this.mode = 'refuse';
    this.resetAll();
    await this.closeServer();
  }

  /** Keeps accepting and keeps sockets open, but forwards nothing. */
  async blackhole(): Promise<void> {
    this.mode = 'blackhole';
    for (const link of this.links) hold(link);
    if (!this.server) await this.listen();
  }

  /** Stops the proxy and resets every connection. */
  async close(): Promise<void> {
    this.mode = 'refuse';
    this.resetAll();
    await this.closeServer();
  }

  private async listen(): Promise<void> {
    const server = net.createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
  }

  private accept(client: net.Socket): void {
    const link: Link = { client, upstream: undefined };
    this.links.add(link);
    client.on('error', () => undefined);
    client.on('close', () => {
      link.upstream?.destroy();
      this.links.delete(link);
    });
    if (this.mode === 'blackhole') {
      hold(link);
      return;
    }
    const upstream = net.connect(this.targetPort, this.targetHost);
    link.upstream = upstream;
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  }

  private resetAll(): void {
    for (const link of this.links) {
      link.client.resetAndDestroy();
      link.upstream?.destroy();
    }
    this.links.clear();
  }

  private async closeServer(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

// Stops forwarding on a link while keeping both sockets open; what arrives is read and dropped, so
// neither side sees an error or a closed window, only silence.
function hold(link: Link): void {
  link.client.unpipe();
  link.upstream?.unpipe();
  // The server closing its side (an idle timeout) must not reach the client through the blackhole.
  link.upstream
    ?.removeAllListeners('close')
    .removeAllListeners('error')
    .on('error', () => undefined);
  for (const socket of [link.client, link.upstream]) {
    if (!socket) continue;
    socket.removeAllListeners('data');
    socket.on('data', () => undefined);
    socket.resume();
  }
}
