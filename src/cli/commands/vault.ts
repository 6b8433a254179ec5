import path from 'node:path';
import { ConfigError } from '../../config/index.js';
import { UserError } from '../../platform/errors.js';
import { initVault, type VaultInit } from '../../vault/template.js';
import { type CommandContext, UsageError } from '../command.js';
import { json } from '../format.js';

/** `mnemo vault init [DIR]`: makes an Obsidian vault from the template, or keeps one there. */
export async function runVault({ config, args, flags, out }: CommandContext): Promise<number> {
  const [sub, dir, ...rest] = args;
  if (sub !== 'init' || rest.length > 0) {
    throw new UsageError('vault takes one subcommand: mnemo vault init [DIR]');
  }
  const chosen = dir ?? config.vaultDir;
  if (chosen === undefined) {
    throw new UsageError('no vault is set: mnemo vault init DIR, or set MNEMO_VAULT_DIR');
  }
  const vault = path.resolve(chosen);
  let done: VaultInit;
  try {
    done = initVault(vault, config.vaultFolder);
  } catch (error) {
    // A folder that leads out of the vault: the message names the setting and the fix.
    if (error instanceof UserError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      `cannot make the vault at ${vault}: ${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (error as Error).message}; pick a folder you can write`,
    );
  }
  if (flags.json) {
    out(json(done));
    return 0;
  }
  out(
    done.created
      ? `Made a vault at ${vault} from the template. In Obsidian: Open folder as vault, and pick it.`
      : `${vault} already holds files: used as it is, with ${done.folder}/ for mnemo's notes.`,
  );
  if (dir && path.resolve(dir) !== config.vaultDir) {
    out(`Set MNEMO_VAULT_DIR=${vault} for mnemo to promote into it.`);
  }
  return 0;
}
