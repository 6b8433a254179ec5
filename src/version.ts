import fs from 'node:fs';
import { fromPackageRoot } from './platform/package-root.js';

export const VERSION: string = (
  JSON.parse(fs.readFileSync(fromPackageRoot('package.json'), 'utf8')) as { version: string }
).version;
