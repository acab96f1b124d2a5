// Command-line parsing, pure: argv in, a command or a usage error out.
import { parseArgs } from 'node:util';
import { describeFlagError } from '@noderepair/core/codec';
import { FORMATS, type Format } from '../formats/index.js';

export const USAGE = `Usage:
  overlayfs-gen generate --config FILE --out DIR [--format files|cloud-init|kubeadm-config] [--template-name NAME]
  overlayfs-gen validate --config FILE
  overlayfs-gen help

generate  validates the config and writes the boot script, systemd units and health monitors:
          files           the node's file tree below DIR (default)
          cloud-init      DIR/cloud-init.yaml (#cloud-config: write_files + runcmd)
          kubeadm-config  DIR/kubeadm-config-template.yaml (Cluster API KubeadmConfigTemplate patch)
validate  checks the config and lists every problem.

Exit codes: 0 ok, 1 invalid config (nothing written), 2 usage error, 3 output could not be written.`;

export type Command =
  | { readonly kind: 'help' }
  | { readonly kind: 'validate'; readonly config: string }
  | { readonly kind: 'generate'; readonly config: string; readonly out: string; readonly format: Format; readonly templateName?: string };

export type Parsed = { readonly ok: true; readonly command: Command } | { readonly ok: false; readonly error: string };

const isFormat = (s: string): s is Format => (FORMATS as readonly string[]).includes(s);

const OPTIONS = {
  config: { type: 'string', short: 'c' },
  out: { type: 'string', short: 'o' },
  format: { type: 'string', short: 'f' },
  'template-name': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function parseCommand(argv: readonly string[]): Parsed {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: OPTIONS });
  } catch (e) {
    // Names the flag (and the one probably meant), as every noderepair command line does.
    return { ok: false, error: describeFlagError(e, OPTIONS) };
  }
  const { values, positionals } = parsed;
  const [verb, ...extra] = positionals;
  if (values.help || verb === 'help' || verb === undefined) {
    return verb === undefined && !values.help ? { ok: false, error: 'missing command' } : { ok: true, command: { kind: 'help' } };
  }
  if (extra.length > 0) return { ok: false, error: `unexpected argument ${JSON.stringify(extra[0])}` };
  if (verb !== 'generate' && verb !== 'validate') return { ok: false, error: `unknown command ${JSON.stringify(verb)}` };
  if (values.config === undefined) return { ok: false, error: `${verb} needs --config FILE` };
  if (verb === 'validate') {
    if (values.out !== undefined || values.format !== undefined || values['template-name'] !== undefined) {
      return { ok: false, error: 'validate takes only --config' };
    }
    return { ok: true, command: { kind: 'validate', config: values.config } };
  }
  if (values.out === undefined) return { ok: false, error: 'generate needs --out DIR' };
  const format = values.format ?? 'files';
  if (!isFormat(format)) return { ok: false, error: `--format must be one of ${FORMATS.join(', ')}, not ${JSON.stringify(format)}` };
  const templateName = values['template-name'];
  if (templateName !== undefined && format !== 'kubeadm-config') {
    return { ok: false, error: '--template-name only applies to --format kubeadm-config' };
  }
  return {
    ok: true,
    command: { kind: 'generate', config: values.config, out: values.out, format, ...(templateName === undefined ? {} : { templateName }) },
  };
}
