// Output formats as pure functions of a bundle: what files the CLI writes for each.
import { either } from 'fp-ts';
import type { Either } from 'fp-ts/Either';
import type { Bundle } from '../generate/index.js';
import { cloudInit } from './cloud-init.js';
import { kubeadmConfigTemplate } from './kubeadm-config.js';
import type { OutputFile } from './write-tree.js';

/** The output formats render() knows, as the CLI's --format accepts them. */
export const FORMATS = ['files', 'cloud-init', 'kubeadm-config'] as const;
/** One of FORMATS: `files` (the node's file tree), `cloud-init` or `kubeadm-config`. */
export type Format = (typeof FORMATS)[number];

/** File name of the `cloud-init` format's single output file. */
export const CLOUD_INIT_FILE = 'cloud-init.yaml';
/** File name of the `kubeadm-config` format's single output file. */
export const KUBEADM_CONFIG_FILE = 'kubeadm-config-template.yaml';

/** Options of render(). */
export interface RenderOptions {
  /**
   * metadata.name of the KubeadmConfigTemplate (format `kubeadm-config` only); default
   * DEFAULT_TEMPLATE_NAME.
   */
  readonly templateName?: string;
}

/**
 * The bundle as files to write for `format`, paths relative to the output directory; Left when the
 * format cannot carry it (see cloudInit, kubeadmConfigTemplate). Pure: write the result with
 * writeTree.
 */
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
