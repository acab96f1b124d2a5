// Files baked into every VM image: the test agent (talks to the host over a virtio-serial
// port, no network) and what boots the root disk. Callers add their own files to ensureImage.

export const AGENT_PORT = 'org.noderepair.agent';

/** A file written into the guest's root file system. */
export interface GuestFile {
  readonly mode: number;
  readonly content: string;
}

export const GUEST_FILES: Readonly<Record<string, GuestFile>> = {
  '/usr/local/sbin/vm-agent': {
    mode: 0o755,
    content: `#!/bin/sh
# Test agent: reads base64 commands, one per line, from the virtio-serial port, runs each with
# sh and answers "RESULT <rc> <base64 output>". Announces "READY <boot id>" when it starts.
port=/dev/virtio-ports/${AGENT_PORT}
while [ ! -e "$port" ]; do sleep 0.2; done
exec 3<>"$port"
printf 'READY %s\\n' "$(cat /proc/sys/kernel/random/boot_id)" >&3
while IFS= read -r line <&3; do
  cmd=$(printf '%s' "$line" | base64 -d 2>/dev/null) || continue
  out=$(sh -c "$cmd" </dev/null 2>&1)
  rc=$?
  printf 'RESULT %s %s\\n' "$rc" "$(printf '%s' "$out" | base64 -w0)" >&3
done
`,
  },
  '/etc/systemd/system/vm-agent.service': {
    mode: 0o644,
    content: `[Unit]
Description=noderepair VM test agent

[Service]
ExecStart=/usr/local/sbin/vm-agent
Restart=always
RestartSec=1

[Install]
WantedBy=multi-user.target
`,
  },
  // A small initramfs (the default MODULES=most one is 36 MB, slow to unpack under TCG):
  // only what finds the root disk.
  '/etc/initramfs-tools/conf.d/noderepair-vm.conf': { mode: 0o644, content: 'MODULES=list\n' },
  '/etc/initramfs-tools/modules': { mode: 0o644, content: 'virtio_pci\nvirtio_blk\next4\n' },
  '/etc/fstab': { mode: 0o644, content: '/dev/vda / ext4 rw,errors=remount-ro 0 0\n' },
  '/etc/hostname': { mode: 0o644, content: 'noderepair-vm\n' },
};

/** Symlinks that `systemctl enable` would create. */
export const GUEST_LINKS: Readonly<Record<string, string>> = {
  '/etc/systemd/system/multi-user.target.wants/vm-agent.service':
    '/etc/systemd/system/vm-agent.service',
};
