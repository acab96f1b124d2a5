// @noderepair/chaos: the pieces of the chaos suite (private; used by its tests only).
export * from './capo-world.js';
export * from './controller-process.js';
export * from './gate-proxy.js';
export * from './least-privilege.js';
export * from './ledger.js';
export * from './secret-scan.js';
export * from './wait.js';
export * from './supervisor.js';
export * from './provider-record.js';
