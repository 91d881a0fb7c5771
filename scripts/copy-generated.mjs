// After tsc: copies the generated files under src/ (tsc emits only what it compiles) into dist/.
import { copyFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
for (const file of ['config/settings-validator.generated.js', 'paymaster/verifying-paymaster-v08.generated.json']) {
  copyFileSync(fileURLToPath(new URL(`src/${file}`, root)), fileURLToPath(new URL(`dist/${file}`, root)));
}
