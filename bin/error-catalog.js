#!/usr/bin/env node
// The installed command: runs the compiled CLI (npm ci builds dist/ through the prepare script).
import { main } from "../dist/pipeline/cli.js";

process.exitCode = await main(process.argv.slice(2));
