// Where the CPU time of a row goes: the mnemo processes, the PostgreSQL backends serving their
// connections, and this process (the MCP clients), between two snapshots.
import type { ChildProcess } from 'node:child_process';
import type pg from 'pg';
import { cpuMs, portsTo } from '../lib/cpu.js';

/** CPU ms a call of a row, by who spent it. */
export interface CpuPerCall {
  /** The mnemo serve processes. */
  mnemo: number;
  /** The PostgreSQL backends of their connections (null on JSONL). */
  postgres: number | null;
  /** This process: the MCP clients. */
  clients: number;
  /** CPU of all three over the wall time of the row, in cores. */
  cores: number;
}

/** What a row's CPU is measured on: the servers, and the database they use (if any). */
export interface CpuScope {
  servers: readonly ChildProcess[];
  database?: { admin: pg.Client; port: number } | undefined;
}

export interface CpuSnapshot {
  at: number;
  clients: NodeJS.CpuUsage;
  mnemo: number;
  backends: Map<number, number>;
}

/** The PostgreSQL backends serving the servers' connections, with their CPU ms so far. */
async function backendsOf(scope: CpuScope): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (!scope.database) return out;
  const ports = scope.servers.flatMap((s) =>
    s.pid === undefined ? [] : portsTo(s.pid, scope.database?.port ?? 5432),
  );
  const rows = await scope.database.admin.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1)',
    [ports],
  );
  for (const { pid } of rows.rows) out.set(pid, cpuMs(pid));
  return out;
}

export async function cpuSnapshot(scope: CpuScope): Promise<CpuSnapshot> {
  return {
    at: performance.now(),
    clients: process.cpuUsage(),
    mnemo: scope.servers.reduce((sum, s) => sum + (s.pid === undefined ? 0 : cpuMs(s.pid)), 0),
    backends: await backendsOf(scope),
  };
}

/**
 * CPU ms a call between two snapshots. A backend seen only at the end started during the row (a
 * pool grows under load): all its time counts; one that ended during the row is missed.
 */
export async function cpuPerCall(
  scope: CpuScope,
  before: CpuSnapshot,
  calls: number,
): Promise<CpuPerCall> {
  const after = await cpuSnapshot(scope);
  const clients = process.cpuUsage(before.clients);
  const mnemo = after.mnemo - before.mnemo;
  let postgres = 0;
  for (const [pid, ms] of after.backends) postgres += ms - (before.backends.get(pid) ?? 0);
  const clientsMs = (clients.user + clients.system) / 1000;
  const wall = after.at - before.at;
  return {
    mnemo: mnemo / calls,
    postgres: scope.database ? postgres / calls : null,
    clients: clientsMs / calls,
    cores: (mnemo + postgres + clientsMs) / wall,
  };
}
