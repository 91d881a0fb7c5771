// Writes src/config/settings-validator.generated.js: the settings schema's validator as code (Ajv's
// standalone output), so that loading the config neither imports Ajv nor compiles a schema. Every CLI
// command loads the config, and that was a third of what a one-line admin command took.
// Run after changing the settings schema (src/config/schema.ts and its *-settings.ts parts): npm run generate (a test fails while the file is stale).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateSettingsValidator } from './settings-validator-source.ts';

const target = fileURLToPath(new URL('../src/config/settings-validator.generated.js', import.meta.url));
writeFileSync(target, generateSettingsValidator());
process.stdout.write(`wrote ${target}\n`);
