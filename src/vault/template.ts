import fs from 'node:fs';
import path from 'node:path';
import { makeDirs } from '../platform/durable-file.js';
import { fromPackageRoot } from '../platform/package-root.js';
import { checkFolderInVault, isFolderName, VaultPathError } from './paths.js';

/** vault-template/ at the package root, with a trailing separator. */
export const TEMPLATE_DIR = `${fromPackageRoot('vault-template')}${path.sep}`;

// Kept in git so the empty folder exists; not part of a vault.
const SKIP = new Set(['.gitkeep']);

export interface VaultInit {
  vault: string;
  folder: string;
  /** True when the vault was made from the template; false when an existing one was used. */
  created: boolean;
}

/** Checks MNEMO_VAULT_FOLDER (`isFolderName`); the folder with `/` between its parts. */
function checkFolderName(folder: string): string {
  if (!isFolderName(folder)) {
    throw new VaultPathError(
      `MNEMO_VAULT_FOLDER must be a folder name inside the vault, such as "mnemo" (got "${folder}")`,
    );
  }
  return folder
    .split(/[\\/]+/)
    .filter(Boolean)
    .join('/');
}

/**
 * Makes sure `vault` is a vault with `folder` in it. A folder that does not exist or is empty is
 * made from the template; an existing vault is used as it is and only `folder` is created in it.
 * Never overwrites a file, and creates nothing when `folder` would lead out of the vault.
 */
export function initVault(vault: string, folder: string, template = TEMPLATE_DIR): VaultInit {
  const name = checkFolderName(folder);
  checkFolderInVault(vault, name);
  const created = isMissingOrEmpty(vault);
  if (created) copyTree(template, vault);
  makeDirs(path.join(vault, name));
  return { vault, folder: name, created };
}

function isMissingOrEmpty(dir: string): boolean {
  try {
    return fs.readdirSync(dir).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}

function copyTree(from: string, to: string): void {
  makeDirs(to);
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) copyTree(source, target);
    else if (entry.isFile()) {
      try {
        fs.copyFileSync(source, target, fs.constants.COPYFILE_EXCL);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
  }
}
