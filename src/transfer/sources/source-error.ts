import { UserError } from '../../platform/errors.js';

/**
 * A source path that cannot be read at all, or is plainly not the format `--from` names: the
 * message names the path, the `--from` value and the fix.
 */
export class ImportSourceError extends UserError {
  override name = 'ImportSourceError';
}
