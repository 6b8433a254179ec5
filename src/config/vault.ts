// The settings of the Obsidian vault: where it is, mnemo's folder in it, the anchor note.
import path from 'node:path';
import { z } from 'zod';
import { isFolderName, normalizeFolderName } from '../vault/paths.js';
import { type DefaultContext, resolvedPath, type Setting } from './rows.js';

/** Where promoted memories go; read after STORAGE, whose dataDir and databaseUrl it defaults from. */
export const VAULT = {
  vaultDir: {
    variable: 'MNEMO_VAULT_DIR',
    // Replicas on PostgreSQL share memories, not a disk: only the one told a vault writes notes.
    default: ({ settings }: DefaultContext) =>
      settings.databaseUrl ? undefined : path.join(settings.dataDir as string, 'vault'),
    read: resolvedPath,
    schema: z.string().min(1).optional(),
    meaning:
      'the Obsidian vault promoted memories go to (made from `vault-template/` if missing or empty); with MNEMO_DATABASE_URL, none unless set',
  },
  vaultFolder: {
    variable: 'MNEMO_VAULT_FOLDER',
    default: 'mnemo',
    schema: z
      .string()
      .min(1, 'MNEMO_VAULT_FOLDER must not be empty: e.g. mnemo')
      .refine(isFolderName, {
        message:
          'MNEMO_VAULT_FOLDER must be a folder name inside the vault: names joined by /, without . or .. parts, a leading dot, a backslash, : or a control character, e.g. mnemo or notes/mnemo',
      })
      .transform(normalizeFolderName),
    meaning: 'the folder of the vault mnemo writes its notes in (the only one)',
  },
  anchorFile: {
    variable: 'MNEMO_ANCHOR_FILE',
    read: resolvedPath,
    schema: z.string().min(1).optional(),
    meaning:
      "the default namespace's anchor: a Markdown file the person owns, first in every context pack (unset: `anchor.md` in the vault root; another namespace's is `anchor.md` in its own folder)",
  },
} satisfies Record<string, Setting>;
