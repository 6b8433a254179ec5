import fs from 'node:fs';
import path from 'node:path';

export class VaultPathError extends Error {
  override name = 'VaultPathError';
}

/** Whether `target` is `root` itself or inside it, both absolute and resolved. */
export function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * The absolute path of `relative` (a vault path such as `mnemo/note.md`) inside `root`.
 * Throws when it would leave the vault, by `..`, by being absolute, or through a symbolic link
 * of the existing part of the path.
 */
export function resolveInVault(root: string, relative: string): string {
  if (path.isAbsolute(relative) || /^[a-zA-Z]:/.test(relative)) {
    throw new VaultPathError(`"${relative}" is an absolute path; a vault path is relative`);
  }
  const target = path.resolve(root, relative);
  if (!isInside(root, target)) {
    throw new VaultPathError(`"${relative}" is outside the vault ${root}`);
  }
  const realRoot = realpathOrSelf(root);
  const realTarget = realpathOfExisting(target);
  if (!isInside(realRoot, realTarget)) {
    throw new VaultPathError(`"${relative}" leads outside the vault ${root} through a link`);
  }
  return target;
}

/** A vault-relative path with forward slashes, as Obsidian and promoted_to write it. */
export function toVaultPath(root: string, absolute: string): string {
  return path.relative(root, absolute).split(path.sep).join('/');
}

function realpathOrSelf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/** The real path of the longest existing prefix of `p`, with the rest appended. */
function realpathOfExisting(p: string): string {
  let head = p;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(head), ...rest.reverse());
    } catch {
      const parent = path.dirname(head);
      if (parent === head) return p;
      rest.push(path.basename(head));
      head = parent;
    }
  }
}
