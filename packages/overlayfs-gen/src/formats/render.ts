// Output formats as pure functions of a bundle: what files the CLI writes for each.
import { either } from 'fp-ts';
import type { Either } from 'fp-ts/Either';
import type { Bundle } from '../generate/index.js';
import { cloudInit } from './cloud-init.js';
import { kubeadmConfigTemplate } from './kubeadm-config.js';
import type { OutputFile } from './write-tree.js';

export const FORMATS = ['files', 'cloud-init', 'kubeadm-config'] as const;
export type Format = (typeof FORMATS)[number];

export const CLOUD_INIT_FILE = 'cloud-init.yaml';
export const KUBEADM_CONFIG_FILE = 'kubeadm-config-template.yaml';

export interface RenderOptions {
  readonly templateName?: string;
}

export function render(bundle: Bundle, format: Format, options: RenderOptions = {}): Either<string, OutputFile[]> {
  switch (format) {
    case 'files':
      // The node's tree below the output directory: OUT/etc/systemd/system/...
      return either.right(bundle.files.map((f) => ({ relPath: f.path.slice(1), mode: f.mode, content: f.content })));
    case 'cloud-init':
      return either.map((content: string) => [{ relPath: CLOUD_INIT_FILE, mode: 0o644, content }])(cloudInit(bundle));
    case 'kubeadm-config':
      return either.map((content: string) => [{ relPath: KUBEADM_CONFIG_FILE, mode: 0o644, content }])(
        kubeadmConfigTemplate(bundle, options.templateName),
      );
  }
}
