#!/usr/bin/env node
// The `bo1` console client. Registers tsx so the TypeScript sources run as they are, from any working directory.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
