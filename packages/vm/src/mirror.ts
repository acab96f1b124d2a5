// The Debian mirror and suite this machine's apt uses: the VM rootfs comes from the same
// place (there is no other network here, and CI machines are configured the same way).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DebianSource {
  readonly mirror: string;
  readonly suite: string;
}

function candidates(): string[] {
  const texts: string[] = [];
  if (existsSync('/etc/apt/sources.list')) texts.push(readFileSync('/etc/apt/sources.list', 'utf8'));
  const d = '/etc/apt/sources.list.d';
  if (existsSync(d)) {
    for (const f of readdirSync(d).sort()) {
      if (f.endsWith('.sources') || f.endsWith('.list')) texts.push(readFileSync(join(d, f), 'utf8'));
    }
  }
  return texts;
}

/** First main Debian archive entry (URI ending in /debian, suite without -updates/-security). */
export function debianSource(): DebianSource {
  for (const text of candidates()) {
    // deb822 stanzas
    for (const stanza of text.split(/\n\s*\n/)) {
      const field = (name: string) => new RegExp(`^${name}:\\s*(.+)$`, 'mi').exec(stanza)?.[1]?.trim().split(/\s+/) ?? [];
      if (!field('Types').includes('deb')) continue;
      const uri = field('URIs').find((u) => /\/debian\/?$/.test(u));
      const suite = field('Suites').find((s) => !s.includes('-'));
      if (uri && suite) return { mirror: uri.replace(/\/$/, ''), suite };
    }
    // one-line format
    for (const line of text.split('\n')) {
      const m = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\/?\s+([a-z]+)\s/.exec(line.trim() + ' ');
      if (m?.[1] && m[2]) return { mirror: m[1], suite: m[2] };
    }
  }
  throw new Error('no Debian archive found in /etc/apt/sources.list(.d); the VM test needs one to debootstrap from');
}
