// The dummy service the health monitor in boot.vm.test.ts watches, baked into the VM image
// beside @noderepair/vm-node's test agent (ensureImage's `files` and `links`).
import type { GuestFile } from '@noderepair/vm';

export const DUMMY_FILES: Readonly<Record<string, GuestFile>> = {
  // The dummy watched service: a heartbeat file, fresh while the process runs. Restart=no on
  // purpose: only the generated drop-in (Restart=always) can bring it back.
  '/usr/local/bin/dummy-heartbeat': {
    mode: 0o755,
    content: `#!/bin/sh
# Handles SIGTERM like a real daemon. While it is stopped (hung) the signal stays pending, so
# only the monitor's SIGKILL gets rid of it. (Without a handler, SIGTERM kills even a stopped
# process.)
trap 'exit 0' TERM
while :; do
  date +%s > /run/dummy.beat
  sleep 1
done
`,
  },
  '/usr/local/bin/dummy-alive': {
    mode: 0o755,
    content: `#!/bin/sh
# Healthy when the heartbeat is at most 4 seconds old.
[ -n "$(find /run/dummy.beat -newermt '-4 seconds' 2>/dev/null)" ]
`,
  },
  '/etc/systemd/system/dummy.service': {
    mode: 0o644,
    content: `[Unit]
Description=dummy service watched by the noderepair health monitor

[Service]
ExecStart=/usr/local/bin/dummy-heartbeat
Restart=no

[Install]
WantedBy=multi-user.target
`,
  },
};

/** The link `systemctl enable dummy.service` would create. */
export const DUMMY_LINKS: Readonly<Record<string, string>> = {
  '/etc/systemd/system/multi-user.target.wants/dummy.service': '/etc/systemd/system/dummy.service',
};
