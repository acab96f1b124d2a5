// Applies #cloud-config user data inside a booted VM the way cloud-init applies it: every
// write_files entry (decoded, with its permissions and owner), then each runcmd command in
// order, each as root through the test agent. Only those two modules: they are what
// overlayfs-gen's cloud-init output uses.
import { parse } from 'yaml';
import type { Vm } from './qemu.js';

interface WriteFile {
  path: string;
  permissions?: string;
  owner?: string;
  encoding?: string;
  content: string;
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Writes the files, then runs the commands; a failing step throws with its output. */
export async function applyCloudConfig(vm: Vm, userData: string): Promise<void> {
  const doc = (parse(userData) ?? {}) as { write_files?: WriteFile[]; runcmd?: string[] };
  for (const f of doc.write_files ?? []) {
    const gzip = f.encoding === 'gzip+base64' || f.encoding === 'gz+b64';
    const b64 = gzip || f.encoding === 'base64' || f.encoding === 'b64';
    const payload = b64 ? f.content : Buffer.from(f.content, 'utf8').toString('base64');
    const decode = gzip ? 'base64 -d | gunzip' : 'base64 -d';
    await vm.ok(
      `mkdir -p "$(dirname ${q(f.path)})" && printf '%s' ${q(payload)} | ${decode} > ${q(f.path)} && chmod ${f.permissions ?? '0644'} ${q(f.path)} && chown ${f.owner ?? 'root:root'} ${q(f.path)}`,
    );
  }
  for (const cmd of doc.runcmd ?? []) await vm.ok(cmd);
}
