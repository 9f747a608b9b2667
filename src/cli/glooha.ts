#!/usr/bin/env node
// The `glooha` executable (package.json bin). Dev: npx tsx src/cli/glooha.ts render -f examples/glooha.yaml
import { main, processIO } from './main.js';

process.exitCode = await main(process.argv.slice(2), processIO(), process.env);
