/** A setting that stops the start; the message names the setting and where it came from. */
export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    problem: string,
  ) {
    super(`invalid setting ${setting}: ${problem}`);
    this.name = 'ConfigError';
  }
}
