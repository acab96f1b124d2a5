import { either } from 'fp-ts';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { decodeConfig } from '../config/index.js';
import { generate, type Bundle } from '../generate/index.js';
import { cloudInit } from './cloud-init.js';
import { decodeContent, encodeFile, MAX_CONTENT_CHARS } from './encode.js';
import { kubeadmConfigTemplate } from './kubeadm-config.js';
import { render } from './render.js';

const cfg = decodeConfig({});
if (either.isLeft(cfg)) throw new Error('defaults invalid');
const bundle = generate(cfg.right);

function right<T>(e: either.Either<string, T>): T {
  if (either.isLeft(e)) throw new Error(e.left);
  return e.right;
}

interface WrittenFile {
  path: string;
  permissions: string;
  owner: string;
  encoding?: 'gzip+base64';
  content: string;
}

describe('encodeFile', () => {
  it('keeps small files as plain text', () => {
    expect(right(encodeFile({ path: '/a', mode: 0o644, content: 'x\n' }))).toEqual({ path: '/a', permissions: '0644', owner: 'root:root', content: 'x\n' });
  });

  it('gzip+base64-encodes content over 10240 characters and round-trips it', () => {
    const content = `#!/bin/sh\n${'echo hello world\n'.repeat(1000)}`;
    expect(content.length).toBeGreaterThan(MAX_CONTENT_CHARS);
    const e = right(encodeFile({ path: '/big', mode: 0o755, content }));
    expect(e.encoding).toBe('gzip+base64');
    expect(e.content.length).toBeLessThanOrEqual(MAX_CONTENT_CHARS);
    expect(decodeContent(e)).toBe(content);
  });

  it('refuses content too big even compressed', () => {
    // Random-looking text does not compress.
    let s = '';
    let x = 1;
    while (s.length < 20000) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      s += x.toString(36);
    }
    const e = encodeFile({ path: '/huge', mode: 0o644, content: s });
    expect(either.isLeft(e) && e.left).toMatch(/^\/huge: \d+ characters even after gzip\+base64, over the 10240-character limit; deliver it with contentFrom.secret$/);
  });
});

function checkFiles(files: WrittenFile[], b: Bundle): void {
  expect(files.map((f) => f.path)).toEqual(b.files.map((f) => f.path));
  files.forEach((f, i) => {
    const g = b.files[i];
    expect(f.permissions).toBe(`0${g?.mode.toString(8)}`);
    expect(f.owner).toBe('root:root');
    expect(decodeContent(f)).toBe(g?.content);
    expect(f.content.length).toBeLessThanOrEqual(MAX_CONTENT_CHARS);
  });
}

describe('cloud-init', () => {
  const text = right(cloudInit(bundle));
  it('is #cloud-config with write_files and runcmd', () => {
    expect(text.startsWith('#cloud-config\n')).toBe(true);
    const doc = parse(text) as { write_files: WrittenFile[]; runcmd: string[] };
    checkFiles(doc.write_files, bundle);
    expect(doc.runcmd).toEqual(bundle.commands);
  });

  it('quotes permissions', () => {
    expect(text).toContain('permissions: "0755"');
    expect(text).toContain('permissions: "0644"');
  });
});

describe('KubeadmConfigTemplate patch', () => {
  it('has files and postKubeadmCommands', () => {
    const doc = parse(right(kubeadmConfigTemplate(bundle, 'md-0'))) as {
      apiVersion: string;
      kind: string;
      metadata: { name: string };
      spec: { template: { spec: { files: WrittenFile[]; postKubeadmCommands: string[] } } };
    };
    expect(doc.apiVersion).toBe('bootstrap.cluster.x-k8s.io/v1beta1');
    expect(doc.kind).toBe('KubeadmConfigTemplate');
    expect(doc.metadata.name).toBe('md-0');
    checkFiles(doc.spec.template.spec.files, bundle);
    expect(doc.spec.template.spec.postKubeadmCommands).toEqual(bundle.commands);
  });

  it('compresses a boot script over the limit', () => {
    const many = decodeConfig({
      volatile: ['/etc'],
      persistent: Array.from({ length: 150 }, (_, i) => `/etc/persistent-directory-number-${i}`),
    });
    if (either.isLeft(many)) throw new Error('invalid');
    const b = generate(many.right);
    expect(b.files[0]?.content.length).toBeGreaterThan(MAX_CONTENT_CHARS);
    const doc = parse(right(kubeadmConfigTemplate(b))) as { spec: { template: { spec: { files: WrittenFile[] } } } };
    expect(doc.spec.template.spec.files[0]?.encoding).toBe('gzip+base64');
    checkFiles(doc.spec.template.spec.files, b);
  });

  it('rejects a template name that is not an object name', () => {
    expect(either.isLeft(kubeadmConfigTemplate(bundle, 'Bad Name'))).toBe(true);
  });
});

describe('render', () => {
  it('lays out the node tree for the files format', () => {
    const out = right(render(bundle, 'files'));
    expect(out.map((f) => f.relPath)).toEqual(bundle.files.map((f) => f.path.slice(1)));
  });
  it('writes one file for the snippet formats', () => {
    expect(right(render(bundle, 'cloud-init')).map((f) => f.relPath)).toEqual(['cloud-init.yaml']);
    expect(right(render(bundle, 'kubeadm-config')).map((f) => f.relPath)).toEqual(['kubeadm-config-template.yaml']);
  });
});
