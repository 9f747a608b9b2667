// Copies the non-TypeScript files the operator reads at run time (handlebars templates) next to the
// compiled JavaScript, so `node dist/src/main.js` finds them where the sources do.
import { cpSync, existsSync } from 'node:fs';

if (existsSync('src/templates')) cpSync('src/templates', 'dist/src/templates', { recursive: true });
