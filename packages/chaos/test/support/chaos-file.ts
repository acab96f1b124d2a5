// Per-file plumbing: the suite directory from the global setup, and the ledger.
import { join } from 'node:path';
import { inject } from 'vitest';
import { recordFault, type LedgerEntry } from '../../src/ledger.js';

export { NOT_MEASURED } from '../../src/ledger.js';

export function chaosDir(): string {
  return inject('chaosDir');
}

export function record(e: LedgerEntry): void {
  recordFault(join(chaosDir(), 'ledger'), e);
}
