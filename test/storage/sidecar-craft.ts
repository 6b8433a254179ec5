// Sidecars as a data dir synced from elsewhere may hold them: whole (size and checksum right)
// but of any header or column bytes. The checksum covers the body only, and anyone can compute it.
import fs from 'node:fs';
import zlib from 'node:zlib';

export type HeaderJson = Record<string, unknown> | null;

/** Rewrites the sidecar's JSON header with `edit`, keeping its body and making its size right. */
export function withHeader(file: string, edit: (header: HeaderJson) => unknown): void {
  const buf = fs.readFileSync(file);
  const length = buf.readUInt32LE(8);
  const body = buf.subarray((12 + length + 7) & ~7);
  const build = (size: number) => {
    const header = edit(JSON.parse(buf.toString('utf8', 12, 12 + length)));
    const json = Buffer.from(
      JSON.stringify(header === null ? null : { ...(header as object), size }),
    );
    const head = Buffer.alloc((12 + json.length + 7) & ~7, 0x20);
    head.write('MNEMOIDX');
    head.writeUInt32LE(json.length, 8);
    json.copy(head, 12);
    return Buffer.concat([head, body]);
  };
  let out = build(0);
  for (let i = 0; i < 3; i++) out = build(out.length);
  fs.writeFileSync(file, out);
}

/** Changes the bytes of column `name` with `edit`, and the checksum with them. */
export function withColumn(file: string, name: string, edit: (bytes: Buffer) => void): void {
  const buf = fs.readFileSync(file);
  const length = buf.readUInt32LE(8);
  const start = (12 + length + 7) & ~7;
  const header = JSON.parse(buf.toString('utf8', 12, 12 + length));
  const column = header.columns.find((c: { name: string }) => c.name === name);
  edit(buf.subarray(start + column.offset));
  const crc = zlib.crc32(buf.subarray(start));
  fs.writeFileSync(file, buf);
  withHeader(file, (h) => ({ ...h, crc }));
}

/** The header with every column changed by `edit`. */
export const columnsOf = (
  header: HeaderJson,
  edit: (column: Record<string, unknown>) => unknown,
) => ({
  ...header,
  columns: ((header?.columns ?? []) as Record<string, unknown>[]).map(edit),
});
