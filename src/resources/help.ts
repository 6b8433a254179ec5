// The tools' guide: what their short descriptions leave out, read when an agent needs it.
import { TOOL_CONTRACTS } from '../contract/index.js';

/** The tools, a line each (mnemo://help). */
export function helpIndex(): string {
  return [
    "# mnemo's tools",
    '',
    'Each tool with its description; mnemo://help/<tool> has its details (behaviours, limits, an example).',
    'A call with bad arguments answers isError with a message that names the field and the fix.',
    '',
    ...TOOL_CONTRACTS.map((tool) => `- ${tool.name} (${tool.title}): ${tool.description}`),
    '',
  ].join('\n');
}

/** One tool's guide (mnemo://help/{tool}), or undefined when there is no such tool. */
export function toolHelp(name: string): string | undefined {
  const tool = TOOL_CONTRACTS.find((t) => t.name === name);
  if (!tool) return undefined;
  return [`# ${tool.name}: ${tool.title}`, '', tool.description, '', tool.guide ?? '', ''].join(
    '\n',
  );
}

/** Tool names that start with `prefix`, for completing mnemo://help/{tool}. */
export function toolNames(prefix: string): string[] {
  return TOOL_CONTRACTS.map((t) => t.name).filter((name) => name.startsWith(prefix));
}
