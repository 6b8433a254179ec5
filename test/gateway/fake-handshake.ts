// What a hand-made HTTP upstream answers to the gateway's opening requests, so that the tests'
// fakes differ only in how they answer a call: initialize as a 2025 server of tools, tools/list
// empty. Anything else is the fake's own to answer (undefined).

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
