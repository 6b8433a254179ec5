import { it } from 'node:test';
import { openTestClient } from '../test/support.js';
it('size', async () => {
  const t = await openTestClient();
  const { tools } = await t.client.listTools();
  let a = 0, b = 0;
  for (const tool of tools) { const x = tool.name.length + (tool.title ?? '').length + (tool.description ?? '').length + JSON.stringify(tool.inputSchema).length + JSON.stringify(tool.annotations ?? {}).length; a += x; b += x + JSON.stringify(tool.outputSchema ?? {}).length; }
  console.log('tools', tools.length, 'size', a, 'with output', b);
  await t.close();
});
