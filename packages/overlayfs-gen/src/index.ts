// @noderepair/overlayfs-gen: config -> boot script + systemd units for tmpfs overlays on
// volatile directories, node-local health monitors, cloud-init and Cluster API snippets.
export * from './config/index.js';
export * from './generate/index.js';
export * from './formats/index.js';
