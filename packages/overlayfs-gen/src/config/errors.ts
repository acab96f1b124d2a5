/** One reason a config is rejected: which field, which value, which rule, and what to do. */
export interface ConfigError {
  /** Field path in the config, e.g. "persistent[3]" or "healthMonitors[0].unit". */
  readonly field: string;
  /** The offending value as written (paths, names); absent for structural errors. */
  readonly value?: string;
  /** Stable rule id, e.g. "absolute", "forbidden", "duplicate". */
  readonly rule: string;
  /** What is wrong and what to do, in words for the user. */
  readonly message: string;
}

/** One line for the user: field, value (quoted), message and rule id. */
export function formatConfigError(e: ConfigError): string {
  const value = e.value === undefined ? '' : ` ${JSON.stringify(e.value)}`;
  return `${e.field}${value}: ${e.message} [rule: ${e.rule}]`;
}
