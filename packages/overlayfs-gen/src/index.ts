/**
 * Generates, from one config, the boot script and systemd units that put tmpfs overlays on a node's
 * volatile directories, the node-local health monitors, and the cloud-init and Cluster API snippets
 * that install them.
 *
 * @packageDocumentation
 */
export * from './config/index.js';
export * from './generate/index.js';
export * from './formats/index.js';
