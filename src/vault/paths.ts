import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../platform/errors.js';

/** A vault path, or MNEMO_VAULT_FOLDER, that would lead out of the vault. */
export class VaultPathError extends UserError {
  override name = 'VaultPathError';
}

/**
 * Whether `folder` (MNEMO_VAULT_FOLDER) names a folder inside a vault: relative, folder names
 * joined by `/`, without `.`, `..` or a hidden (dot) part, a backslash (a separator on Windows,
 * a letter elsewhere: which one is meant is a guess) or a control character. A `/` at either end
 * or doubled is allowed: `normalizeFolderName` drops it.
 */
export function isFolderName(folder: string): boolean {
  const parts = folder.split('/').filter(Boolean);
  return (
    parts.length > 0 &&
    !path.isAbsolute(folder) &&
    !folder.startsWith('/') &&
    // biome-ignore lint/suspicious/noControlCharactersInRegex: what is refused
    !/[\\\u0000-\u001f\u007f:]/.test(folder) &&
    !parts.some((p) => p === '.' || p === '..' || p.startsWith('.'))
  );
}

/**
 * MNEMO_VAULT_FOLDER as every comparison of vault paths needs it: `mnemo/` and `mnemo//x` are
 * `mnemo` and `mnemo/x`. (With a trailing `/` kept, the default namespace took the other
 * namespaces' folders `mnemo//bob/` for its own and saw their notes.)
 */
export function normalizeFolderName(folder: string): string {
  return folder.split('/').filter(Boolean).join('/');
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
  // No file has a NUL in its name: said here, rather than as the fs call's TypeError later.
  if (relative.includes('\0')) {
    throw new VaultPathError(
      'the vault path holds a NUL character, which no file name can: give the path of a note in the vault, e.g. mnemo/note.md',
    );
  }
  // The messages name neither the vault (the caller may be remote) nor an absolute path given.
  if (path.isAbsolute(relative) || /^[a-zA-Z]:/.test(relative)) {
    throw new VaultPathError(
      'the vault path is an absolute path; a vault path is relative to the vault, e.g. mnemo/note.md',
    );
  }
  const target = path.resolve(root, relative);
  if (!isInside(root, target)) {
    throw new VaultPathError(`"${relative}" is outside the vault`);
  }
  const realRoot = realpathOrSelf(root);
  const realTarget = realpathOfExisting(target);
  if (!isInside(realRoot, realTarget)) {
    throw new VaultPathError(`"${relative}" leads outside the vault through a link`);
  }
  return target;
}

/**
 * Checks that mnemo's folder (MNEMO_VAULT_FOLDER, already checked to be a relative name) stays
 * inside the vault: each part of it that exists is resolved, links too, and must be inside the
 * vault. Run before anything is created, so that nothing is ever made outside.
 */
export function checkFolderInVault(root: string, folder: string): void {
  const realRoot = realpathOrSelf(root);
  let current = root;
  const parts = folder.split(/[\\/]+/).filter(Boolean);
  for (const [i, part] of parts.entries()) {
    current = path.join(current, part);
    let real: string;
    try {
      real = fs.realpathSync(current);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      // What does not exist yet is made as a folder inside its parent, which is inside; a link
      // to nothing is judged by where it points.
      const target = linkTarget(current);
      if (target === undefined) return;
      real = path.resolve(path.dirname(fs.realpathSync(path.dirname(current))), target);
    }
    if (!isInside(realRoot, real)) {
      const link = parts.slice(0, i + 1).join('/');
      throw new VaultPathError(
        `MNEMO_VAULT_FOLDER "${parts.join('/')}" leads out of the vault ${root}: "${link}" is a link to ${real}; set MNEMO_VAULT_FOLDER to a folder inside the vault (or make "${link}" a folder of the vault)`,
      );
    }
  }
}

/** A vault-relative path with forward slashes, as Obsidian and promoted_to write it. */
export function toVaultPath(root: string, absolute: string): string {
  return path.relative(root, absolute).split(path.sep).join('/');
}

/** Where the link at `p` points, or undefined when `p` is not a link. */
function linkTarget(p: string): string | undefined {
  try {
    return fs.readlinkSync(p);
  } catch {
    return undefined;
  }
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
