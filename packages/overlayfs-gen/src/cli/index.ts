export { main, EXIT_OK, EXIT_INVALID_CONFIG, EXIT_USAGE, EXIT_WRITE_FAILED } from './main.js';
export type { Io } from './main.js';
export { parseCommand, USAGE } from './args.js';
export type { Command, Parsed } from './args.js';
