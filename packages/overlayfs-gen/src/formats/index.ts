export { cloudInit } from './cloud-init.js';
export { kubeadmConfigTemplate, DEFAULT_TEMPLATE_NAME } from './kubeadm-config.js';
export type { EncodedFile } from './encode.js';
export { encodeFile, encodeFiles, decodeContent, permissionsOf, MAX_CONTENT_CHARS } from './encode.js';
export type { OutputFile } from './write-tree.js';
export { writeTree } from './write-tree.js';
export type { Format, RenderOptions } from './render.js';
export { render, FORMATS, CLOUD_INIT_FILE, KUBEADM_CONFIG_FILE } from './render.js';
