#!/usr/bin/env node
/**
 * The `evalschema-js` command (package.json `bin`): argument parsing and the commands live in cli/main.ts.
 *
 * Exit statuses: 0 every document valid (warnings allowed unless --strict); 1 at least one document invalid;
 * 2 usage error, or at least one input unreadable or unparseable (the others are still checked).
 */

import { main, quietStreams } from "./cli/main.js";

quietStreams();
process.exitCode = main(process.argv.slice(2));
