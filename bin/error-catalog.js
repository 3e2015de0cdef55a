#!/usr/bin/env node
// The installed command: runs the CLI as one bundled module (npm ci builds dist/ through the
// prepare script: tsc, then esbuild joins the pipeline's modules, which halves their load time).
import { guardProcess, main } from "../dist/pipeline/cli.bundle.js";

guardProcess();
process.exitCode = await main(process.argv.slice(2));
