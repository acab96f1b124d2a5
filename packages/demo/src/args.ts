// The demo's flags. Pure, so the errors are unit tested.
import { parseArgs } from 'node:util';

export const usage = `usage: noderepair-demo [--report FILE.html] [--plain] [--timeout SECONDS] [--log-dir DIR] [--openstack fake|real]

  --report FILE.html   write a self-contained page with the timeline of every node
  --plain              one line per change even on a terminal (default when stdout is not a terminal)
  --timeout SECONDS    time the scenarios may take before the demo judges them (default 300)
  --log-dir DIR        where the controller's log goes (default: a new temp directory)
  --openstack fake|real  where every node's server lives and noderepair's reboots go: the fake Nova (default)
                       or the real OpenStack test bed (packages/openstack-testbed, installed and started)`;

export type OpenStackMode = 'fake' | 'real';

export interface CliOptions {
  report: string | undefined;
  plain: boolean;
  timeoutSeconds: number;
  logDir: string | undefined;
  openstack: OpenStackMode;
}

/** Parses the flags; a string is the error message (naming the flag). */
export function parseCli(args: string[]): CliOptions | string {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args,
      options: {
        report: { type: 'string' },
        plain: { type: 'boolean' },
        timeout: { type: 'string' },
        'log-dir': { type: 'string' },
        openstack: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (e) {
    return (e as Error).message;
  }
  if (values['help']) return usage;
  const report = values['report'] as string | undefined;
  if (report !== undefined && !/\.html?$/i.test(report))
    return `--report: expected a file name ending in .html, got "${report}"`;
  const t = (values['timeout'] as string | undefined) ?? '300';
  const timeoutSeconds = Number(t);
  if (!/^\d+$/.test(t) || timeoutSeconds < 30)
    return `--timeout: expected a whole number of seconds >= 30, got "${t}"`;
  const openstack = (values['openstack'] as string | undefined) ?? 'fake';
  if (openstack !== 'fake' && openstack !== 'real')
    return `--openstack: expected "fake" or "real", got "${openstack}"`;
  return {
    report,
    plain: values['plain'] === true,
    timeoutSeconds,
    logDir: values['log-dir'] as string | undefined,
    openstack,
  };
}
