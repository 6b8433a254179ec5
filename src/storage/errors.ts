// The errors of storage whatever the engine: a store that cannot be used as it is, a write that
// would move a record between namespaces.
import { UserError } from '../platform/errors.js';

/** The store cannot be used as it is: the message names the folder or server and the fix. */
export class StoreError extends UserError {
  override name = 'StoreError';
}

/** A write of namespace `ns` names a record another namespace holds: refused whole. */
export function crossing(ns: string): StoreError {
  return new StoreError(
    `a record of this write is not in namespace "${ns}": nothing was written. Records never move between namespaces`,
  );
}
