export * from './rate-limiter.js';
export * from './work-queue.js';
