// The MCP conformance suite's server scenarios (@modelcontextprotocol/conformance, run with npx)
// against `mnemo serve`: how many pass for each spec revision's required set, and why each other
// one fails. Builds nothing: run `npm run build` first.
//
//   npm run conformance [-- --version 0.2.0-alpha.12] [--requirements 2026-07-28,2025-11-25]
//                          [--out DIR] [--json FILE]
//
// mnemo serve listens on 127.0.0.1, a port the system picks, a fresh data dir, no token. The
// suite's scenarios call test tools and prompts of their own (test_simple_text, test_image_content,
// test_prompt_with_arguments, ...): a server without them fails those scenarios, and that is
// reported as it is, not implemented here.
//
// Suites before 0.2 cannot select a revision: their default (active) suite is run and scored.
// 0.1.14 and later import fs.globSync, which Node 20 lacks (the package declares no engines);
// only its tier-check command calls it. On Node 20 a loader hook gives the suite an fs whose
// globSync throws, so the newest suite runs here too.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { killGroup, spawnGroup } from '../bench/lib/processes.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const SUITE = '@modelcontextprotocol/conformance';
const DEFAULT_VERSION = '0.2.0-alpha.12';
const DEFAULT_REQUIREMENTS = '2025-11-25,2026-07-28';
const START_MS = 30_000;
const RUN_MS = 15 * 60_000;

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

interface ScenarioResult {
  scenario: string;
  /** Required by the revision (scored), or run beside it (extension, pending). */
  scored: boolean;
  passed: boolean;
  checks: { passed: number; failed: number; warnings: number };
  failures: { check: string; reason: string }[];
}

interface RevisionResult {
  revision: string;
  required: number;
  passedRequired: number;
  scenarios: ScenarioResult[];
  /** Required scenarios that left no result (the suite crashed or timed out on them). */
  missing: string[];
}

/** NODE_OPTIONS that let the suite import fs.globSync on Node 20. */
function node20Options(): string {
  const shim = `data:text/javascript,${encodeURIComponent(
    "import fs from 'node:fs'; export * from 'node:fs'; export default fs;" +
      "export function globSync() { throw new Error('fs.globSync needs Node 22'); }",
  )}`;
  const hooks =
    `const SHIM = ${JSON.stringify(shim)};` +
    'export async function resolve(specifier, context, next) {' +
    "  if ((specifier === 'fs' || specifier === 'node:fs') &&" +
    `      context.parentURL?.includes('/${SUITE}/')) return { url: SHIM, shortCircuit: true };` +
    '  return next(specifier, context);' +
    '}';
  const register =
    "import { register } from 'node:module';" +
    `register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  return `--import=data:text/javascript,${encodeURIComponent(register)}`;
}

function suiteEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) env.NODE_OPTIONS = [env.NODE_OPTIONS, node20Options()].filter(Boolean).join(' ');
  return env;
}

/** Runs `npx -y SUITE@version ...args`; its output, whatever its exit code. */
function suite(version: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return npx(['-y', `${SUITE}@${version}`, ...args]);
}

function npx(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnGroup(process.cwd(), 'npx', args, suiteEnv());
    let output = '';
    const keep = (d: Buffer) => {
      output += d.toString('utf8');
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const timer = setTimeout(() => void killGroup(child), RUN_MS);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** The server scenarios a revision requires, as `conformance list` names them. */
async function requiredScenarios(version: string, revision: string): Promise<string[]> {
  const { code, output } = await suite(version, ['list', '--server', '--requirements', revision]);
  if (code !== 0) throw new Error(`conformance list failed (${code}):\n${output}`);
  const lines = output.split('\n');
  const start = lines.findIndex((l) => l.startsWith('Server scenarios'));
  const names: string[] = [];
  for (const line of lines.slice(start + 1)) {
    const m = /^\s+- (\S+)/.exec(line);
    if (!m) break;
    names.push(m[1] as string);
  }
  if (start === -1 || names.length === 0) {
    throw new Error(`no server scenarios listed for ${revision}:\n${output}`);
  }
  return names;
}

/** mnemo serve on a fresh data dir; its URL, and how to stop it. */
async function startMnemo(dataDir: string) {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const child = spawnGroup(
    dataDir,
    process.execPath,
    [CLI, 'serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir],
    { MNEMO_LOG_LEVEL: 'warn', MNEMO_EMBEDDINGS: 'off', MNEMO_RATE_LIMIT: '0' },
  );
  let printed = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`mnemo serve printed no URL in ${START_MS} ms:\n${printed}`)),
      START_MS,
    );
    const read = (d: Buffer) => {
      printed += d.toString('utf8');
      const m = /mnemo serve: (http:\/\/\S+\/mcp)\b/.exec(printed);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mnemo serve exited (${code}) before it listened:\n${printed}`));
    });
  });
  return {
    url,
    alive: () => child.exitCode === null && child.signalCode === null,
    output: () => printed,
    stop: () => killGroup(child),
  };
}

/** `server-<scenario>-<timestamp>` → scenario. */
const scenarioOf = (dir: string) =>
  dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');

function readResults(outDir: string, required: string[] | undefined): ScenarioResult[] {
  const results: ScenarioResult[] = [];
  for (const dir of fs.readdirSync(outDir).sort()) {
    const file = path.join(outDir, dir, 'checks.json');
    if (!fs.existsSync(file)) continue;
    const checks = JSON.parse(fs.readFileSync(file, 'utf8')) as Check[];
    const failed = checks.filter((c) => c.status === 'FAILURE');
    const scenario = scenarioOf(dir);
    results.push({
      scenario,
      scored: required?.includes(scenario) ?? true,
      passed: failed.length === 0,
      checks: {
        passed: checks.filter((c) => c.status === 'SUCCESS').length,
        failed: failed.length,
        warnings: checks.filter((c) => c.status === 'WARNING').length,
      },
      failures: failed.map((c) => ({
        check: c.id,
        reason: (c.errorMessage ?? '(no message)').replace(/\s+/g, ' ').slice(0, 300),
      })),
    });
  }
  return results;
}

/** The revision label of a suite too old to select one (before 0.2): its default, active suite. */
const ACTIVE_SUITE = 'active suite';

/** Whether this suite can run a revision's required set (`--requirements`, from 0.2). */
async function selectsRevisions(version: string): Promise<boolean> {
  const { output } = await suite(version, ['server', '--help']);
  return output.includes('--requirements');
}

async function runRevision(
  version: string,
  revision: string,
  url: string,
  outDir: string,
): Promise<{ result: RevisionResult; output: string }> {
  const active = revision === ACTIVE_SUITE;
  const required = active ? undefined : await requiredScenarios(version, revision);
  fs.mkdirSync(outDir, { recursive: true });
  const selection = active ? [] : ['--requirements', revision];
  const { output } = await suite(version, [
    'server',
    '--url',
    url,
    ...selection,
    '--output-dir',
    outDir,
  ]);
  // An old suite's default run is all it requires: every scenario it ran is scored.
  const scenarios = readResults(outDir, required);
  const ran = new Set(scenarios.map((s) => s.scenario));
  return {
    result: {
      revision,
      required: required?.length ?? scenarios.length,
      passedRequired: scenarios.filter((s) => s.scored && s.passed).length,
      scenarios,
      missing: (required ?? []).filter((s) => !ran.has(s)),
    },
    output,
  };
}

/**
 * The fixtures each scenario calls, read from the suite's own code: the test_* tools and prompts
 * and test:// resources it expects a server under test to have (mnemo has none). Empty if the
 * code cannot be found or read; the report then says nothing about fixtures.
 */
async function suiteFixtures(version: string): Promise<Map<string, string[]>> {
  const fixtures = new Map<string, string[]>();
  const { code, output } = await npx([
    '-y',
    '-p',
    `${SUITE}@${version}`,
    '-c',
    'command -v conformance',
  ]);
  const bin = output.split('\n').find((l) => l.startsWith('/'));
  if (code !== 0 || bin === undefined) return fixtures;
  let source: string;
  try {
    source = fs.readFileSync(fs.realpathSync(bin.trim()), 'utf8');
  } catch {
    return fixtures;
  }
  // Each scenario is a class whose constructor sets this.name; its fixtures follow, up to the next.
  const starts = [...source.matchAll(/this\.name=`([a-z0-9-]+)`/g)];
  starts.forEach((m, i) => {
    const body = source.slice(m.index, starts[i + 1]?.index ?? source.length);
    const names = body.match(/\btest_[a-z0-9_]+|test:\/\/[a-z0-9/{}_-]+|json_schema_2020_12_tool/g);
    if (names) fixtures.set(m[1] as string, [...new Set(names)]);
  });
  return fixtures;
}

function report(
  version: string,
  results: RevisionResult[],
  fixtures: Map<string, string[]>,
): string {
  const lines = [`${SUITE}@${version} against mnemo serve (node ${process.versions.node})`];
  for (const r of results) {
    const failing = r.scenarios.filter((s) => s.scored && !s.passed);
    const needing = failing.filter((s) => fixtures.has(s.scenario)).length;
    lines.push(
      '',
      `== ${r.revision}: ${r.passedRequired} of ${r.required} required scenarios pass` +
        (fixtures.size > 0
          ? ` (${needing} of the ${failing.length} failing call fixtures of the suite's own)`
          : ''),
    );
    for (const s of r.scenarios.filter((x) => x.scored)) {
      const checks = `${s.checks.passed} checks passed, ${s.checks.failed} failed`;
      lines.push(`  ${s.passed ? 'pass' : 'FAIL'}  ${s.scenario} (${checks})`);
      if (s.passed) continue;
      const named = fixtures.get(s.scenario);
      if (named) lines.push(`          calls the suite's ${named.join(', ')}`);
      for (const f of s.failures) lines.push(`          ${f.check}: ${f.reason}`);
    }
    for (const m of r.missing) lines.push(`  FAIL  ${m} (no result: the suite left none)`);
    const extra = r.scenarios.filter((x) => !x.scored);
    if (extra.length > 0) {
      const passed = extra.filter((x) => x.passed).length;
      lines.push(`  not scored (extension, pending): ${passed} of ${extra.length} pass`);
      for (const s of extra.filter((x) => !x.passed)) {
        lines.push(`    ${s.scenario}: ${s.failures[0]?.check}: ${s.failures[0]?.reason}`);
      }
    }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      version: { type: 'string', default: DEFAULT_VERSION },
      requirements: { type: 'string', default: DEFAULT_REQUIREMENTS },
      out: { type: 'string' },
      json: { type: 'string' },
      verbose: { type: 'boolean', default: false },
    },
  });
  const version = values.version as string;
  const revisions = (await selectsRevisions(version))
    ? (values.requirements as string).split(',').map((r) => r.trim())
    : [ACTIVE_SUITE];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-conformance-data-'));
  const outRoot = values.out ?? fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-conformance-'));
  const mnemo = await startMnemo(dataDir);
  const results: RevisionResult[] = [];
  try {
    for (const revision of revisions) {
      const { result, output } = await runRevision(
        version,
        revision,
        mnemo.url,
        path.join(outRoot, revision),
      );
      if (values.verbose) process.stderr.write(output);
      if (!mnemo.alive())
        throw new Error(`mnemo serve died during ${revision}:\n${mnemo.output()}`);
      results.push(result);
    }
  } finally {
    await mnemo.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (values.out === undefined) fs.rmSync(outRoot, { recursive: true, force: true });
  }
  const fixtures = await suiteFixtures(version);
  console.log(report(version, results, fixtures));
  if (values.out !== undefined) console.log(`\nEach scenario's checks: ${outRoot}`);
  if (values.json) {
    const json = {
      suite: SUITE,
      version,
      node: process.versions.node,
      results,
      fixtures: Object.fromEntries(fixtures),
    };
    fs.writeFileSync(values.json, `${JSON.stringify(json, null, 2)}\n`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
