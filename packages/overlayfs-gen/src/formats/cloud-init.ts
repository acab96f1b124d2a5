// A #cloud-config snippet: write_files then runcmd, the order cloud-init runs them in. Merge it
// into the user data AFTER whatever runs kubeadm, so /etc/kubernetes exists before the first
// overlay boot.
import { either } from 'fp-ts';
import type { Either } from 'fp-ts/Either';
import type { Bundle } from '../generate/index.js';
import { encodeFiles } from './encode.js';
import { renderYaml } from './yaml.js';

/**
 * The bundle as a `#cloud-config` document (write_files, then runcmd); merge it after whatever runs
 * kubeadm. Left when a file is too large even compressed.
 */
export function cloudInit(bundle: Bundle): Either<string, string> {
  return either.map((files: unknown[]) =>
    renderYaml({ write_files: files, runcmd: [...bundle.commands] }, '#cloud-config'),
  )(encodeFiles(bundle.files));
}
