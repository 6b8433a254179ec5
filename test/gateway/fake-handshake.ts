// Hand-made HTTP upstreams for the gateway's tests, so that the fakes differ only in how they
// answer a call: the opening requests answered as a 2025 server of tools (initialize, tools/list
// empty), the rest the fake's own.
import http from 'node:http';

export function handshakeAnswer(
  id: unknown,
  method: string | undefined,
  params: { protocolVersion?: string } | undefined,
  name: string,
): Record<string, unknown> | undefined {
  if (method === 'initialize') {
    return {
      jsonrpc: '2.0',
      id,
      result: {
        protocolVersion: params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name, version: '1' },
      },
    };
  }
  if (method === 'tools/list') return { jsonrpc: '2.0', id, result: { tools: [] } };
  return undefined;
}

/** A JSON-RPC request to a hand-made upstream, with what answers it. */
export interface HandCall {
  id: unknown;
  method: string;
  params: { name?: string; protocolVersion?: string } | undefined;
  req: http.IncomingMessage;
  res: http.ServerResponse;
  /** Answers HTTP 200 with `value` as JSON. */
  json(value: unknown): void;
}

/**
 * A streamable HTTP upstream by hand: each POST read whole as JSON-RPC (another method: 405; a
 * notification: 202), a request handed to `answer`; one it leaves unanswered (returns false) is
 * answered as an opening request of a server named `name`, else -32601.
 */
export function handUpstream(name: string, answer: (call: HandCall) => boolean): http.Server {
  return http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString();
    });
    req.on('end', () => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const { id, method, params } = JSON.parse(body) as Partial<HandCall>;
      if (id === undefined || method === undefined) return void res.writeHead(202).end();
      const json = (value: unknown) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (answer({ id, method, params, req, res, json })) return;
      json(
        handshakeAnswer(id, method, params, name) ?? {
          jsonrpc: '2.0',
          id,
          error: { code: -32601, message: 'Method not found' },
        },
      );
    });
  });
}
