// The syntax tree of a source file of this repository, read by tests that check the sources
// themselves (every regex linear, every import allowed): @babel/parser's TypeScript parse, and a
// walk over every node of it.
import { readFileSync } from 'node:fs';
import { type ParserPlugin, parse } from '@babel/parser';

/** A node of @babel/parser's tree, as far as these tests read it. */
export interface SyntaxNode {
  type: string;
  loc?: { start: { line: number } } | null;
  [key: string]: unknown;
}

const isNode = (value: unknown): value is SyntaxNode =>
  typeof value === 'object' && value !== null && typeof (value as SyntaxNode).type === 'string';

/** The program of a .ts or .tsx file, parsed as a module. */
export function parseSource(file: string): SyntaxNode {
  const plugins: ParserPlugin[] = file.endsWith('x') ? ['typescript', 'jsx'] : ['typescript'];
  const tree = parse(readFileSync(file, 'utf8'), { sourceType: 'module', plugins });
  return tree.program as unknown as SyntaxNode;
}

/** Every node under `node` and itself, depth first (fields in order, arrays item by item). */
export function* nodesUnder(node: SyntaxNode): Generator<SyntaxNode> {
  yield node;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'loc' || key === 'leadingComments' || key === 'trailingComments') continue;
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) yield* nodesUnder(item);
    } else if (isNode(value)) {
      yield* nodesUnder(value);
    }
  }
}

/** The text of a string literal or a template without substitutions; undefined otherwise. */
export function literalText(node: SyntaxNode | undefined): string | undefined {
  if (node?.type === 'StringLiteral') return node.value as string;
  if (node?.type === 'TemplateLiteral' && (node.expressions as SyntaxNode[]).length === 0) {
    const [quasi] = node.quasis as SyntaxNode[];
    return (quasi?.value as { cooked: string } | undefined)?.cooked;
  }
  return undefined;
}

/**
 * What a module names as another module: import and export ... from, `import x = require()`,
 * `import()` (dynamic or in a type), and `require()` (a createRequire's).
 */
export function importedSpecifiers(program: SyntaxNode): string[] {
  const named: string[] = [];
  for (const node of nodesUnder(program)) {
    const source = node.source as SyntaxNode | undefined;
    const callee = node.callee as SyntaxNode | undefined;
    const [first] = (node.arguments as SyntaxNode[] | undefined) ?? [];
    let text: string | undefined;
    if (
      node.type === 'ImportDeclaration' ||
      node.type === 'ExportNamedDeclaration' ||
      node.type === 'ExportAllDeclaration'
    ) {
      text = literalText(source ?? undefined);
    } else if (node.type === 'ImportExpression') {
      text = literalText(source);
    } else if (
      node.type === 'CallExpression' &&
      (callee?.type === 'Import' || (callee?.type === 'Identifier' && callee.name === 'require'))
    ) {
      text = literalText(first);
    } else if (node.type === 'TSImportType') {
      text = literalText((node.argument as SyntaxNode | undefined) ?? undefined);
    } else if (node.type === 'TSExternalModuleReference') {
      text = literalText(node.expression as SyntaxNode);
    }
    if (text !== undefined) named.push(text);
  }
  return named;
}
